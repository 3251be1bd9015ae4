import CVips
import Foundation

/// Encodes an image into a file format's bytes, in memory, with all metadata stripped.
///
/// This is where libvips evaluates the lazy pipeline, so nearly all CPU time is spent here.
struct ImageEncoder: Sendable {
    /// The quality used when a row gives none, per format (sharp's defaults, which users of
    /// sharp and imgproxy expect).
    static func defaultQuality(for format: OutputFormat) -> Int {
        switch format {
        case .avif: return 50
        default: return 80
        }
    }

    /// Encodes `image` as `format`; `quality` nil means the format's default.
    func encode(_ image: VipsImageRef, as format: OutputFormat, quality: Int?)
        throws(ImagingError) -> Data
    {
        let q = Int32(quality ?? Self.defaultQuality(for: format))
        let image = try image.withoutMetadata()
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch format {
        case .jpeg: status = tg_jpegsave_buffer(image.pointer, &buffer, &length, q)
        case .png: status = tg_pngsave_buffer(image.pointer, &buffer, &length, 6)
        case .webp: status = tg_webpsave_buffer(image.pointer, &buffer, &length, q)
        case .avif: status = tg_avifsave_buffer(image.pointer, &buffer, &length, q, 4)
        case .jxl, .gif, .tiff:
            throw .libvips(operation: "\(format.rawValue)save", message: "not supported yet")
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
