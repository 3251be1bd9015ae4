/// Which of the source's metadata an output keeps (the `keep` column, `--keep`, a list); the
/// default, `none`, strips everything.
public struct KeptMetadata: Sendable, Equatable, Hashable, Codable {
    /// The output carries an ICC profile: its own colour's (sRGB's compact profile under
    /// `--colour srgb`, the source's under `keep`, Display P3's under `p3`).
    public var icc = false
    /// EXIF Artist and Copyright, and the rights and credit fields of XMP and IPTC.
    public var copyright = false
    /// The source's EXIF without its GPS tags, its thumbnail, and with the orientation 1 (the
    /// pixels are upright already).
    public var exif = false

    /// Keeps nothing.
    public init() {}

    /// Whether anything beyond a profile is kept: EXIF, XMP or IPTC blocks.
    public var keepsBlocks: Bool { copyright || exif }
    /// Whether nothing is kept.
    public var isNone: Bool { !icc && !keepsBlocks }

    /// Its part of a cache key: the kept kinds in a fixed order, joined by `+`.
    public var identifier: String {
        [icc ? "icc" : nil, copyright ? "copyright" : nil, exif ? "exif" : nil]
            .compactMap { $0 }.joined(separator: "+")
    }

    /// Parses a cell such as `icc,copyright` or `none`; nil when a name is none of
    /// `none`, `icc`, `copyright`, `exif`.
    public static func parse(_ text: String) -> KeptMetadata? {
        var kept = KeptMetadata()
        for name in text.lowercased().split(whereSeparator: { $0 == "," || $0 == " " }) {
            switch name {
            case "none": continue
            case "icc": kept.icc = true
            case "copyright": kept.copyright = true
            case "exif": kept.exif = true
            default: return nil
            }
        }
        return kept
    }
}
