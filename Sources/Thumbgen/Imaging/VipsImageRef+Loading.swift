import CVips

/// Opening files through exactly one named libvips loader (`FormatSniffer` picks it), so that
/// no other loader's sniffer ever runs.
extension VipsImageRef {
    /// The order a loader is asked to deliver rows in.
    enum Access: Sendable {
        /// Top to bottom, once: the loader streams and keeps little in memory.
        case sequential
        /// Any order (turning or flipping needs it), at the cost of decoding the whole image.
        case random
    }

    /// Opens `path` with the loader named `loader` (`jpegload`, `pngload`, ...); with
    /// `allFrames`, every page, stacked top to bottom; else page `page` (counted from 1; only a
    /// loader of multi-page files takes one other than the first). A failure is reported under
    /// `loader`.
    static func load(_ loader: String, path: String, access: Access, strictness: DecodeStrictness,
                     allFrames: Bool = false, page: Int = 1) throws(ImagingError) -> VipsImageRef
    {
        let accessCode = access.vipsCode, failCode = strictness.vipsCode
        // The first page is opened without naming it: most loaders have no `page` to name.
        let pointer = allFrames ? tg_load_with_all_pages(loader, path, accessCode, failCode)
            : page != 1 ? tg_load_page(loader, path, accessCode, failCode, Int32(page - 1))
            : tg_load_with(loader, path, accessCode, failCode)
        guard let pointer else {
            throw .libvips(operation: loader, message: VipsErrorBuffer.take())
        }
        if loader == "heifload" { tg_own_blobs(pointer) }
        return VipsImageRef(owning: pointer)
    }

    /// Opens a JPEG shrunk on load by `factor` (1, 2, 4 or 8): the DCT skips the pixels it
    /// would drop.
    static func loadJPEG(path: String, shrinkFactor factor: Int, access: Access,
                         strictness: DecodeStrictness) throws(ImagingError) -> VipsImageRef
    {
        let accessCode = access.vipsCode, failCode = strictness.vipsCode
        return try make("jpegload") {
            tg_jpegload_shrink(path, $0, accessCode, failCode, Int32(factor))
        }
    }

    /// Opens a WebP decoded straight to `scale` (in (0, 1]) of its size; with `allFrames`, every
    /// frame, stacked top to bottom; else frame `page` (counted from 1).
    static func loadWebP(path: String, scale: Double, allFrames: Bool, page: Int = 1, access: Access,
                         strictness: DecodeStrictness) throws(ImagingError) -> VipsImageRef
    {
        let accessCode = access.vipsCode, failCode = strictness.vipsCode
        let first = allFrames ? 0 : Int32(page - 1)
        return try make("webpload") {
            tg_webpload_scale(path, $0, accessCode, failCode, scale, first, allFrames ? -1 : 1)
        }
    }

    /// Opens a PDF's page `page` (counted from 1) or an SVG (`loader` `pdfload` or `svgload`),
    /// drawn at `scale` times its size at 72 dpi: from the vector, at the density asked for.
    static func loadVector(_ loader: String, path: String, page: Int, scale: Double, access: Access,
                           strictness: DecodeStrictness) throws(ImagingError) -> VipsImageRef
    {
        let accessCode = access.vipsCode, failCode = strictness.vipsCode
        return try make(loader) {
            loader == "pdfload" ? tg_pdfload_scale(path, $0, accessCode, failCode, Int32(page - 1), scale)
                : tg_svgload_scale(path, $0, accessCode, failCode, scale)
        }
    }

    /// An image of `width` × `height` interleaved 8-bit pixels (`bands` of them a pixel: sRGB,
    /// or grey below 3), which `render` writes into a buffer of exactly that many bytes, rows
    /// with no padding, returning false when it cannot (then `failure` is thrown). The image
    /// has the metadata of `source` (the header image of the file they were decoded from):
    /// what its loader would have opened at this size. `render` writes into the image's own
    /// memory.
    static func rendered(width: Int, height: Int, bands: Int, like source: VipsImageRef,
                         failure: @autoclosure () -> ImagingError,
                         _ render: (UnsafeMutableBufferPointer<UInt8>) -> Bool) throws(ImagingError) -> VipsImageRef {
        let made = tg_image_for_pixels(Int32(width), Int32(height), Int32(bands), source.pointer)
        guard let made else { throw .libvips(operation: "new_memory", message: VipsErrorBuffer.take()) }
        let image = VipsImageRef(owning: made)
        guard let pixels = tg_memory_pixels(made) else { throw failure() }
        let buffer = UnsafeMutableBufferPointer(start: UnsafeMutablePointer(mutating: pixels), count: width * height * bands)
        guard render(buffer) else { throw failure() }
        return image
    }

    /// An image over `pixels`, `width` × `height` interleaved 8-bit pixels of `bands` bands
    /// from `malloc` (a decode made outside libvips), which the image takes and frees when it
    /// closes, with the metadata of `source` (the file's header image); nil when libvips
    /// cannot make it (the pixels freed).
    static func over(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, bands: Int,
                     like source: VipsImageRef) -> VipsImageRef? {
        tg_image_over_pixels(pixels, Int32(width), Int32(height), Int32(bands), source.pointer)
            .map { VipsImageRef(owning: $0) }
    }

    /// Opens the embedded thumbnail of a HEIF's image `page` (counted from 1; the image itself
    /// when it has none).
    static func loadHEIFThumbnail(path: String, page: Int = 1, access: Access, strictness: DecodeStrictness)
        throws(ImagingError) -> VipsImageRef
    {
        guard let pointer = tg_heifload_thumbnail(path, access.vipsCode, strictness.vipsCode, Int32(page - 1)) else {
            throw .libvips(operation: "heifload", message: VipsErrorBuffer.take())
        }
        tg_own_blobs(pointer)
        return VipsImageRef(owning: pointer)
    }

    /// The width of what `loadHEIFThumbnail` opens for `page`, read from its header; nil when it cannot be
    /// opened, whose error text is dropped: a missing thumbnail is no failure of the row.
    static func heifThumbnailWidth(path: String, page: Int = 1, strictness: DecodeStrictness) -> Int? {
        // A bare pointer rather than an owner: only the header is read before the image is
        // dropped, and a loader compiles no vector code, so the unref needs no VipsGraphLock.
        guard let thumbnail = tg_heifload_thumbnail(path, Access.sequential.vipsCode,
                                                    strictness.vipsCode, Int32(page - 1)) else {
            vips_error_clear()
            return nil
        }
        let width = Int(vips_image_get_width(thumbnail))
        tg_unref(thumbnail)
        return width
    }
}

extension VipsImageRef.Access {
    /// The `VipsAccess` value, as the loading shims take it.
    fileprivate var vipsCode: Int32 {
        switch self {
        case .sequential: return Int32(VIPS_ACCESS_SEQUENTIAL.rawValue)
        case .random: return Int32(VIPS_ACCESS_RANDOM.rawValue)
        }
    }
}

extension DecodeStrictness {
    /// libvips' `fail_on` (a `VipsFailOn` value), as the loading shims take it.
    fileprivate var vipsCode: Int32 {
        let failOn: VipsFailOn
        switch self {
        case .none: failOn = VIPS_FAIL_ON_NONE
        case .truncated: failOn = VIPS_FAIL_ON_TRUNCATED
        case .error: failOn = VIPS_FAIL_ON_ERROR
        case .warning: failOn = VIPS_FAIL_ON_WARNING
        }
        return Int32(failOn.rawValue)
    }
}
