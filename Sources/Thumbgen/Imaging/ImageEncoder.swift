import Foundation

/// Encodes an image into a file format's bytes, in memory, with all metadata stripped.
///
/// This is where libvips evaluates the lazy pipeline, so nearly all CPU time is spent here.
struct ImageEncoder: Sendable {
    /// The quality used when a row gives none, per format: sharp's defaults, which users of
    /// sharp and imgproxy expect (JPEG XL: libjxl's "visually lossless" distance 1.0 is about
    /// quality 90). PNG uses it only for `--png-palette`; GIF and TIFF not at all.
    static func defaultQuality(for format: OutputFormat) -> Int {
        switch format {
        case .avif: return 50
        case .jxl: return 90
        case .png: return 100
        default: return 80
        }
    }

    /// Encodes `image` as `format` with `options`; `quality` nil means the format's default.
    /// `watch` bounds the encode and stops it when the run is cancelled.
    func encode(_ image: VipsImageRef, as format: OutputFormat, quality: Int?,
                options: EncodingOptions, watch: StageWatch) throws(ImagingError) -> Data
    {
        let q = quality ?? Self.defaultQuality(for: format)
        // The copy is this encode's own: the kill stops exactly this evaluation, even when
        // `image` is a decoded image other rows read too.
        let image = try image.withoutMetadata()
        watch.enter("encode", evaluating: image)
        let data = try image.saved(with: Self.saver(for: format, quality: q, options: options),
                                   operation: "\(format.rawValue)save")
        return format == .webp ? WebPMetadata.stripped(data) : data
    }

    /// The saver and settings that write `format` (PNG at zlib level 6, libvips' default).
    private static func saver(for format: OutputFormat, quality: Int, options: EncodingOptions) -> VipsSaver {
        switch format {
        case .jpeg: return .jpeg(quality: quality, progressive: options.jpegProgressive)
        case .png: return .png(compression: 6, palette: options.pngPalette, quality: quality)
        case .webp: return .webp(quality: quality, effort: options.webpEffort)
        case .avif: return .avif(quality: quality, effort: options.avifEffort)
        case .jxl: return .jxl(quality: quality, effort: options.jxlEffort)
        case .gif: return .gif(effort: options.gifEffort)
        case .tiff: return .tiff
        }
    }
}
