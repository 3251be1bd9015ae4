import CVips

/// Opens image files through libvips with shrink-on-load and orientation applied.
///
/// Files are sniffed by content (libvips' `is_a` checks), and only the loaders that
/// `VipsRuntime` leaves enabled can open them. Truncated data is an error, never grey fill.
struct SourceDecoder: Sendable {
    /// The limits every source is held to (pixels, frames, bytes, time, strictness).
    var limits = ImagingLimits()

    /// libvips' `fail_on` for `limits.strictness`.
    var failOn: VipsFailOn {
        switch limits.strictness {
        case .none: return VIPS_FAIL_ON_NONE
        case .truncated: return VIPS_FAIL_ON_TRUNCATED
        case .error: return VIPS_FAIL_ON_ERROR
        case .warning: return VIPS_FAIL_ON_WARNING
        }
    }

    /// A file opened far enough to read its header; no pixels are decoded yet.
    struct OpenedSource: @unchecked Sendable {
        let path: String
        let image: VipsImageRef
        let header: ImageHeader
    }

    /// Reads a file's header, sniffing its format by content.
    func open(path: String) throws(ImagingError) -> OpenedSource {
        let image = try openImage(path: path)
        return OpenedSource(path: path, image: image, header: header(of: image))
    }

    /// Decodes `source` reduced as far as `requiredScale` allows, and upright.
    func decode(_ source: OpenedSource, requiredScale: Double) throws(ImagingError) -> DecodedImage {
        let path = source.path, header = source.header
        // Turning or flipping reads rows out of order, which a sequential load cannot serve.
        let access = header.orientation == 1 ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM
        let accessCode = Int32(access.rawValue), failCode = Int32(failOn.rawValue)
        var image = source.image
        switch header.loader {
        case "jpegload":
            let factor = ShrinkOnLoad.jpegFactor(requiredScale: requiredScale)
            if factor > 1 || access != VIPS_ACCESS_SEQUENTIAL {
                image = try VipsImageRef.make("jpegload") {
                    tg_jpegload_shrink(path, $0, accessCode, failCode, Int32(factor))
                }
            }
        case "webpload":
            let scale = ShrinkOnLoad.webpScale(requiredScale: requiredScale)
            if scale < 1 || access != VIPS_ACCESS_SEQUENTIAL {
                image = try VipsImageRef.make("webpload") {
                    tg_webpload_scale(path, $0, accessCode, failCode, scale)
                }
            }
        default:
            if access != VIPS_ACCESS_SEQUENTIAL {
                guard let pointer = tg_load_file(path, accessCode, failCode) else {
                    throw .libvips(operation: "load", message: VipsErrorBuffer.take())
                }
                image = VipsImageRef(owning: pointer)
            }
        }
        if header.orientation != 1 {
            image = try image.autorotated()
        }
        return DecodedImage(image: image, header: header, path: path)
    }

    /// The error a full read of the file's pixels meets, or nil when they decode. Used after a
    /// failed encode: libvips decodes lazily, so a broken source only shows up there, and its
    /// process-wide error text cannot say which row's image failed when several fail at once.
    func decodeError(path: String) -> ImagingError? {
        do {
            // Full size: shrink-on-load of extreme shapes (3×62728) trips libvips assertions.
            let decoded = try decode(open(path: path), requiredScale: 1)
            var average = 0.0
            guard tg_avg(decoded.image.pointer, &average) == 0 else {
                return .libvips(operation: "decode", message: VipsErrorBuffer.take())
            }
            return nil
        } catch {
            return error
        }
    }

    private func openImage(path: String) throws(ImagingError) -> VipsImageRef {
        // find_load names the loader that sniffed the content even when that loader is
        // blocked, so the enabled list is checked here to give the right error.
        guard let loader = vips_foreign_find_load(path).map({ String(cString: $0) }),
              VipsRuntime.isEnabled(loaderClass: loader) else {
            vips_error_clear()
            throw .unsupportedFormat(path: path)
        }
        guard let pointer = tg_load_file(path, Int32(VIPS_ACCESS_SEQUENTIAL.rawValue),
                                         Int32(failOn.rawValue)) else {
            throw .libvips(operation: "load", message: VipsErrorBuffer.take())
        }
        return VipsImageRef(owning: pointer)
    }

    private func header(of image: VipsImageRef) -> ImageHeader {
        let orientation = (1...8).contains(image.orientation) ? image.orientation : 1
        let swapped = orientation >= 5
        return ImageHeader(
            loader: image.loader ?? "unknown",
            orientedWidth: swapped ? image.height : image.width,
            orientedHeight: swapped ? image.width : image.height,
            orientation: orientation)
    }
}
