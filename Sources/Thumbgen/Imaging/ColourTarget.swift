/// The colour one output's pixels are converted to: its row's `ColourOutput`, resolved for
/// the source it renders (`keep` keeps only a profile it can embed as it is).
enum ColourTarget: Hashable, Sendable {
    /// sRGB, through the source's profile.
    case sRGB
    /// The source's own pixels, under its own RGB or grey profile.
    case source
    /// Display P3, through the source's profile, for `ICCProfileWriter.displayP3`.
    case displayP3

    /// `colour` for a source decoded as `image`, whose output stays grey when `grey` says so:
    /// `keep` is `source` only for 8- or 16-bit pixels under a readable RGB profile (or a grey
    /// one, for a grey output), whose bytes then describe the output's pixels exactly; any
    /// other source (none, CMYK, a profile that does not parse) is made sRGB, as `srgb`.
    static func resolve(_ colour: ColourOutput, source image: VipsImageRef, grey: Bool) -> ColourTarget {
        switch colour {
        case .srgb: return .sRGB
        case .p3: return .displayP3
        case .keep:
            guard image.bandFormat == .uint8 || image.bandFormat == .uint16, let profile = image.iccProfile,
                  let tags = ICCTagTable(profile) else { return .sRGB }
            let colourBands = image.bands - (image.hasAlpha ? 1 : 0)
            switch tags.colourSpace {
            case "RGB ": return colourBands == 3 ? .source : .sRGB
            case "GRAY": return colourBands == 1 && grey ? .source : .sRGB
            default: return .sRGB
            }
        }
    }

    /// Whether a grey source may stay grey: not when converted to Display P3, whose profile
    /// is an RGB one.
    func allowsGrey(_ grey: Bool) -> Bool { grey && self != .displayP3 }
}
