import CJPEGWriter
import CVips
import Foundation

/// The libvips savers thumbgen writes with, and what each is told (the shims in `CVips`
/// strip all metadata and fix every other setting).
enum VipsSaver: Sendable, Equatable {
    /// Optimised Huffman tables; `progressive` interlaces; `noSubsampling` keeps chroma 4:4:4.
    case jpeg(quality: Int, progressive: Bool, noSubsampling: Bool)
    /// zlib `compression` 0–9 after the row `filter`; `palette` quantises to at most 256
    /// colours, steered by `quality`.
    case png(compression: Int, filter: PNGFilter, palette: Bool, quality: Int)
    /// WebP, lossy unless `lossless` or `nearLossless` (which preprocesses at level `quality`);
    /// an image with a `page-height` is saved as an animation.
    case webp(quality: Int, effort: Int, lossless: Bool, nearLossless: Bool)
    /// HEIF with AV1 compression.
    case avif(quality: Int, effort: Int, lossless: Bool)
    /// JPEG XL.
    case jxl(quality: Int, effort: Int, lossless: Bool)
    /// GIF; an image with a `page-height` is saved as an animation.
    case gif(effort: Int)
    /// Deflate with a horizontal predictor (lossless).
    case tiff
}

extension VipsImageRef {
    /// Evaluates the image and encodes it in memory with `saver`; a failure is reported under
    /// `operation`. With `onCallingThread`, a JPEG is evaluated on this thread by
    /// `tg_jpeg_write` where it takes the image (same bytes, no saver's threads). The bytes stay
    /// in the encoder's buffer, freed with the `Data`.
    /// With `stripping` false, AVIF and TIFF write the image's ICC profile (JPEG XL writes
    /// one always; the encoder adds it to JPEG, PNG and WebP itself).
    func saved(with saver: VipsSaver, operation: String, onCallingThread: Bool = false,
               stripping: Bool = true) throws(ImagingError) -> Data {
        if onCallingThread, case .jpeg(let quality, let progressive, let noSubsampling) = saver,
           let data = try writtenAsJPEG(quality: quality, progressive: progressive, noSubsampling: noSubsampling,
                                        operation: operation) {
            return data
        }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch saver {
        case .jpeg(let quality, let progressive, let noSubsampling):
            status = tg_jpegsave_buffer(pointer, &buffer, &length, Int32(quality), progressive ? 1 : 0,
                                        noSubsampling ? 1 : 0)
        case .png(let compression, let filter, let palette, let quality):
            status = tg_pngsave_buffer(pointer, &buffer, &length, Int32(compression), filter.vipsFlags,
                                       palette ? 1 : 0, Int32(quality))
        case .webp(let quality, let effort, let lossless, let nearLossless):
            status = tg_webpsave_buffer(pointer, &buffer, &length, Int32(quality), Int32(effort), lossless ? 1 : 0,
                                        nearLossless ? 1 : 0)
        case .avif(let quality, let effort, let lossless):
            status = tg_avifsave_buffer(pointer, &buffer, &length, Int32(quality), Int32(effort), lossless ? 1 : 0,
                                        stripping ? 1 : 0)
        case .jxl(let quality, let effort, let lossless):
            status = tg_jxlsave_buffer(pointer, &buffer, &length, Int32(quality), Int32(effort), lossless ? 1 : 0)
        case .gif(let effort):
            status = tg_gifsave_buffer(pointer, &buffer, &length, Int32(effort))
        case .tiff:
            status = tg_tiffsave_buffer(pointer, &buffer, &length, stripping ? 1 : 0)
        }
        guard status == 0, let buffer else {
            if let buffer { g_free(buffer) }
            throw .libvips(operation: operation, message: VipsErrorBuffer.take())
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { p, _ in g_free(p) })
    }

    /// The image as `jpegsave` would write it with `saver`'s settings, evaluated on this thread
    /// by `tg_jpeg_write` (no saver operation, no sink threads); nil when that writer does not
    /// take this image (not 8-bit grey or RGB, or libvips gives images more than one thread).
    private func writtenAsJPEG(quality: Int, progressive: Bool, noSubsampling: Bool, operation: String)
        throws(ImagingError) -> Data?
    {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = tg_jpeg_write(UnsafeMutableRawPointer(pointer), Int32(quality), progressive ? 1 : 0,
                                   noSubsampling ? 1 : 0, &buffer, &length)
        if status == TG_JPEG_WRITER_UNSUPPORTED { return nil }
        guard status == 0, let buffer else {
            free(buffer)
            throw .libvips(operation: operation, message: VipsErrorBuffer.take())
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .free)
    }
}

extension PNGFilter {
    /// libvips' `VipsForeignPngFilter` flags for the filter.
    var vipsFlags: Int32 {
        let flags: VipsForeignPngFilter = switch self {
        case .none: VIPS_FOREIGN_PNG_FILTER_NONE
        case .sub: VIPS_FOREIGN_PNG_FILTER_SUB
        case .up: VIPS_FOREIGN_PNG_FILTER_UP
        case .average: VIPS_FOREIGN_PNG_FILTER_AVG
        case .paeth: VIPS_FOREIGN_PNG_FILTER_PAETH
        case .adaptive: VIPS_FOREIGN_PNG_FILTER_ALL
        }
        return Int32(bitPattern: flags.rawValue)
    }
}
