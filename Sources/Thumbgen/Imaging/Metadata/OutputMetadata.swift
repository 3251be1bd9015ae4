/// The metadata blocks one output carries (`--colour`, `--keep`), ready to embed: an ICC
/// profile, and the EXIF (a TIFF structure), XMP and IPTC (a Photoshop APP13 payload) made
/// from the source's for the output. Empty by default: outputs carry nothing.
struct OutputMetadata: Equatable, Sendable {
    /// The ICC profile.
    var icc: [UInt8]?
    /// EXIF, as a TIFF structure without the `Exif\0\0` prefix.
    var exif: [UInt8]?
    /// The XMP packet.
    var xmp: [UInt8]?
    /// IPTC-IIM inside a Photoshop image resource block (`Photoshop 3.0\0` + 8BIM 0x0404).
    var iptc: [UInt8]?

    /// Nothing to embed.
    static let none = OutputMetadata()

    /// Whether there is nothing to embed.
    var isEmpty: Bool { icc == nil && exif == nil && xmp == nil && iptc == nil }
}
