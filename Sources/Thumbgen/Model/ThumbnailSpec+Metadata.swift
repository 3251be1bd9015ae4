/// Which formats can carry what a row's `colour` and `keep` put in its output.
extension ThumbnailSpec {
    /// The formats thumbgen writes kept EXIF, XMP and IPTC into.
    public static let metadataFormats: Set<OutputFormat> = [.jpeg, .png, .webp]

    /// Why this spec cannot be written as `format`, or nil when it can: a profile in a GIF
    /// (which has no place for one), or kept EXIF and rights in a format thumbgen does not
    /// write them into. Decided by the row alone, never by what its source happens to carry.
    /// `refusesProfile` tells which: the profile (`colour`, `keep=icc`) or the blocks (`keep`).
    public func metadataRefusal(writing format: OutputFormat) -> (refusesProfile: Bool, message: String)? {
        if format == .gif, colour.embedsProfile || keep.icc {
            let asked = colour.embedsProfile ? "colour=\(colour.rawValue)" : "keep=icc"
            return (true, "a GIF cannot carry an ICC profile (\(asked)): choose png, webp or another format, or colour=srgb")
        }
        if keep.keepsBlocks, !Self.metadataFormats.contains(format) {
            return (false, "keep=\(keep.identifier) is written into JPEG, PNG and WebP outputs only, not \(format.rawValue)")
        }
        return nil
    }
}
