import CVips

/// Opens image files through libvips with shrink-on-load and orientation applied.
///
/// Files are sniffed by content (libvips' `is_a` checks), and only the loaders that
/// `VipsRuntime` leaves enabled can open them. Truncated data is an error, never grey fill.
struct SourceDecoder: Sendable {
    /// How strict loaders are: `VIPS_FAIL_ON_TRUNCATED` fails truncated files but accepts the
    /// recoverable warnings that many real-world files carry.
    var failOn: VipsFailOn = VIPS_FAIL_ON_TRUNCATED

    /// Reads a file's header only.
    func header(path: String) throws(ImagingError) -> ImageHeader {
        try header(of: open(path: path))
    }

    /// Opens `path` reduced as far as `requiredScale` allows, and upright.
    func decode(path: String, requiredScale: Double) throws(ImagingError) -> DecodedImage {
        let probe = try open(path: path)
        let header = try header(of: probe)
        var image = probe
        switch header.loader {
        case "jpegload":
            let factor = ShrinkOnLoad.jpegFactor(requiredScale: requiredScale)
            if factor > 1 {
                image = try VipsImageRef.make("jpegload") {
                    tg_jpegload_shrink(path, $0, Int32(VIPS_ACCESS_SEQUENTIAL.rawValue),
                                       Int32(failOn.rawValue), Int32(factor))
                }
            }
        case "webpload":
            let scale = ShrinkOnLoad.webpScale(requiredScale: requiredScale)
            if scale < 1 {
                image = try VipsImageRef.make("webpload") {
                    tg_webpload_scale(path, $0, Int32(VIPS_ACCESS_SEQUENTIAL.rawValue),
                                      Int32(failOn.rawValue), scale)
                }
            }
        default:
            break
        }
        if header.orientation != 1 {
            image = try image.autorotated()
        }
        return DecodedImage(image: image, header: header)
    }

    private func open(path: String) throws(ImagingError) -> VipsImageRef {
        guard vips_foreign_find_load(path) != nil else {
            vips_error_clear()
            throw .unsupportedFormat(path: path)
        }
        guard let pointer = tg_load_file(path, Int32(VIPS_ACCESS_SEQUENTIAL.rawValue),
                                         Int32(failOn.rawValue)) else {
            throw .libvips(operation: "load", message: VipsErrorBuffer.take())
        }
        return VipsImageRef(owning: pointer)
    }

    private func header(of image: VipsImageRef) throws(ImagingError) -> ImageHeader {
        let orientation = (1...8).contains(image.orientation) ? image.orientation : 1
        let swapped = orientation >= 5
        return ImageHeader(
            loader: image.loader ?? "unknown",
            orientedWidth: swapped ? image.height : image.width,
            orientedHeight: swapped ? image.width : image.height,
            orientation: orientation)
    }
}
