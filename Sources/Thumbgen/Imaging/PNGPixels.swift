import CPNGDecode
import Glibc

/// A PNG's pixels decoded whole by thumbgen's own reader (`CPNGDecode`): libdeflate's inflate
/// and the row filters in vector code, where libvips' `pngload` streams them through libpng
/// and zlib at about twice the time (`docs/performance.md`).
///
/// The reader takes the PNGs whose pixels `pngload` passes on untouched (8 bits a sample, not
/// interlaced, no `tRNS`) and whose file has no fault; any other PNG, and one whose pixels
/// would pass `largestBytes`, is left to libvips, which reads, reports or tolerates it as
/// before. The image carries the header image's metadata, `vips-sequential` with it, so that
/// libvips resamples it as it would have resampled the stream.
enum PNGPixels {
    /// The most pixel bytes decoded whole: a 5120×2880 RGBA wallpaper is 56 MiB; a larger PNG
    /// streams through libvips in constant memory.
    static let largestBytes = 64 << 20

    /// The PNG at `path` decoded into memory with the metadata of `source` (its header image,
    /// opened by `pngload`), or nil when the reader leaves it to libvips.
    static func image(path: String, like source: VipsImageRef) -> VipsImageRef? {
        var decoded = tg_png_pixels()
        guard tg_png_decode_file(path, largestBytes, &decoded) == 0 else { return nil }
        guard Int(decoded.width) == source.width, Int(decoded.height) == source.height,
              Int(decoded.bands) == source.bands else {
            free(decoded.pixels)
            return nil
        }
        return VipsImageRef.over(pixels: decoded.pixels, width: source.width, height: source.height,
                                 bands: source.bands, like: source)
    }
}
