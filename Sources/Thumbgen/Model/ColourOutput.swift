/// The colour space an output's pixels are written in (the `colour` column, `--colour`).
public enum ColourOutput: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Converted to sRGB through the source's profile, and untagged (the default): what every
    /// browser and viewer shows the same.
    case srgb
    /// The source's pixels and its RGB or grey profile, unchanged: a wide-gamut photo keeps its
    /// gamut. A source without a profile (or with a CMYK one) is converted to sRGB as `srgb`.
    case keep
    /// Converted to Display P3 and tagged with thumbgen's compact Display P3 profile, made from
    /// its published primaries and the sRGB transfer function (`ICCProfileWriter`).
    case p3

    /// Whether the output carries an ICC profile whatever `--keep` says (`keep` only when the
    /// source had one it could keep).
    public var embedsProfile: Bool { self != .srgb }
}
