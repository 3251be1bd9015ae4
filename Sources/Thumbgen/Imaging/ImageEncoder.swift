import CVips
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
        let q = Int32(quality ?? Self.defaultQuality(for: format))
        // The copy is this encode's own: the kill stops exactly this evaluation, even when
        // `image` is a decoded image other rows read too.
        let image = try image.withoutMetadata()
        watch.enter("encode", evaluating: image)
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        let pointer = image.pointer
        switch format {
        case .jpeg:
            status = tg_jpegsave_buffer(pointer, &buffer, &length, q, options.jpegProgressive ? 1 : 0)
        case .png:
            status = tg_pngsave_buffer(pointer, &buffer, &length, 6, options.pngPalette ? 1 : 0, q)
        case .webp:
            status = tg_webpsave_buffer(pointer, &buffer, &length, q, Int32(options.webpEffort))
        case .avif:
            status = tg_avifsave_buffer(pointer, &buffer, &length, q, Int32(options.avifEffort))
        case .jxl:
            status = tg_jxlsave_buffer(pointer, &buffer, &length, q, Int32(options.jxlEffort))
        case .gif:
            status = tg_gifsave_buffer(pointer, &buffer, &length, Int32(options.gifEffort))
        case .tiff:
            status = tg_tiffsave_buffer(pointer, &buffer, &length)
        }
        guard status == 0, let buffer else {
            if let buffer { g_free(buffer) }
            let message = VipsErrorBuffer.take()
            throw .libvips(operation: "\(format.rawValue)save", message: message)
        }
        let data = Data(bytesNoCopy: buffer, count: length, deallocator: .custom { p, _ in g_free(p) })
        return format == .webp ? WebPMetadata.stripped(data) : data
    }
}
