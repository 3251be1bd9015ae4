import CVips

/// Opens image files through libvips with shrink-on-load and orientation applied, within
/// `ImagingLimits`.
///
/// Files are sniffed by content (`VipsRuntime.loader(for:)`: magic bytes, in Swift), and
/// exactly the one enabled loader that matches opens them; no other loader's code runs. Damaged data fails as `limits.strictness` says,
/// never as grey fill by default; the pixel limit is checked from the header, before any decode.
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
        /// The loader that opened it, by nickname (`jpegload`, ...): every later load of the
        /// file names it again instead of sniffing.
        let loader: String
        let image: VipsImageRef
        let header: ImageHeader
        /// A HEIF's embedded thumbnail, as a fraction of the primary image's width; nil
        /// without one.
        var heifThumbnailScale: Double?
    }

    /// Reads a file's header, sniffing its format by content; fails when one frame is over the
    /// pixel limit.
    func open(path: String) throws(ImagingError) -> OpenedSource {
        let (loader, image) = try openImage(path: path)
        let header = header(of: image)
        try checkPixels(header, frames: 1)
        var opened = OpenedSource(path: path, loader: loader, image: image, header: header)
        if header.loader == "heifload",
           let thumbnail = tg_heifload_thumbnail(path, Int32(VIPS_ACCESS_SEQUENTIAL.rawValue), Int32(failOn.rawValue)) {
            let width = Int(vips_image_get_width(thumbnail))
            tg_unref(thumbnail)
            if width < image.width { opened.heifThumbnailScale = Double(width) / Double(image.width) }
        } else if header.loader == "heifload" {
            vips_error_clear()
        }
        return opened
    }

    /// Whether `header`'s frames can be kept: an animated GIF or WebP, upright.
    static func canAnimate(_ header: ImageHeader) -> Bool {
        header.frames > 1 && header.orientation == 1
            && (header.loader == "gifload" || header.loader == "webpload")
    }

    /// Decodes `source` reduced as far as `requiredScale` allows, and upright; with
    /// `allFrames` (only where `canAnimate`), every frame, stacked top to bottom.
    func decode(_ source: OpenedSource, requiredScale: Double, allFrames: Bool = false)
        throws(ImagingError) -> DecodedImage
    {
        let path = source.path, header = source.header
        let allFrames = allFrames && Self.canAnimate(header)
        if allFrames {
            guard header.frames <= limits.maxFrames else {
                throw .overLimit(reason: "\(header.frames) frames is over the limit of "
                                 + "\(limits.maxFrames) (--max-frames)")
            }
            try checkPixels(header, frames: header.frames)
        }
        // Turning or flipping reads rows out of order, which a sequential load cannot serve.
        let access = header.orientation == 1 ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM
        let accessCode = Int32(access.rawValue), failCode = Int32(failOn.rawValue)
        let reopen = access != VIPS_ACCESS_SEQUENTIAL || allFrames
        var image = source.image
        switch header.loader {
        case "jpegload":
            let factor = ShrinkOnLoad.jpegFactor(requiredScale: requiredScale)
            if factor > 1 || reopen {
                image = try VipsImageRef.make("jpegload") {
                    tg_jpegload_shrink(path, $0, accessCode, failCode, Int32(factor))
                }
            }
        case "webpload":
            let scale = ShrinkOnLoad.webpScale(requiredScale: requiredScale)
            if scale < 1 || reopen {
                image = try VipsImageRef.make("webpload") {
                    tg_webpload_scale(path, $0, accessCode, failCode, scale, allFrames ? -1 : 1)
                }
            }
        case "heifload" where ShrinkOnLoad.heifUsesThumbnail(
            requiredScale: requiredScale, thumbnailScale: source.heifThumbnailScale):
            guard let pointer = tg_heifload_thumbnail(path, accessCode, failCode) else {
                throw .libvips(operation: "heifload", message: VipsErrorBuffer.take())
            }
            image = VipsImageRef(owning: pointer)
        default:
            if reopen {
                let loader = source.loader
                let pointer = allFrames ? tg_load_with_all_pages(loader, path, accessCode, failCode)
                    : tg_load_with(loader, path, accessCode, failCode)
                guard let pointer else {
                    throw .libvips(operation: loader, message: VipsErrorBuffer.take())
                }
                image = VipsImageRef(owning: pointer)
            }
        }
        if header.orientation != 1 {
            image = try image.autorotated()
        }
        return DecodedImage(image: image, header: header, frames: allFrames ? header.frames : 1,
                            path: path)
    }

    /// The error a full read of the file's pixels meets, or nil when they decode. Used after a
    /// failed encode: libvips decodes lazily, so a broken source only shows up there, and its
    /// process-wide error text cannot say which row's image failed when several fail at once.
    /// `watch` bounds the read and stops it when the run is cancelled.
    func decodeError(path: String, watch: StageWatch) -> ImagingError? {
        do {
            // Full size: shrink-on-load of extreme shapes (3×62728) trips libvips assertions.
            let decoded = try decode(open(path: path), requiredScale: 1)
            // A private copy to kill: the file was opened afresh, but the rule stays simple.
            let own = try decoded.image.copied()
            watch.enter("decode", evaluating: own)
            try own.readAllPixels()
            return nil
        } catch {
            return error
        }
    }

    private func checkPixels(_ header: ImageHeader, frames: Int) throws(ImagingError) {
        let pixels = header.pixels(frames: frames)
        guard pixels <= limits.maxPixels else {
            let frameText = frames > 1 ? " × \(frames) frames" : ""
            throw .overLimit(reason: "\(header.orientedWidth)×\(header.orientedHeight)\(frameText) "
                             + "is over the limit of \(limits.maxPixels) pixels (--max-pixels)")
        }
    }

    private func openImage(path: String) throws(ImagingError) -> (String, VipsImageRef) {
        VipsErrorBuffer.clear()
        guard let loader = VipsRuntime.loader(for: path) else {
            vips_error_clear()
            throw .unsupportedFormat(path: path)
        }
        if loader == "pngload", let problem = PNGPreflight.problem(path: path) {
            throw .libvips(operation: "pngload", message: problem)
        }
        guard let pointer = tg_load_with(loader, path, Int32(VIPS_ACCESS_SEQUENTIAL.rawValue),
                                         Int32(failOn.rawValue)) else {
            throw .libvips(operation: loader, message: VipsErrorBuffer.take())
        }
        return (loader, VipsImageRef(owning: pointer))
    }

    private func header(of image: VipsImageRef) -> ImageHeader {
        let orientation = (1...8).contains(image.orientation) ? image.orientation : 1
        let swapped = orientation >= 5
        let interpretation = image.interpretation
        return ImageHeader(
            loader: image.loader ?? "unknown",
            orientedWidth: swapped ? image.height : image.width,
            orientedHeight: swapped ? image.width : image.height,
            orientation: orientation,
            frames: max(1, image.pageCount),
            isSRGBOrGrey: interpretation == VIPS_INTERPRETATION_sRGB
                || interpretation == VIPS_INTERPRETATION_B_W,
            isEightBit: image.bandFormat == VIPS_FORMAT_UCHAR,
            hasAlpha: image.hasAlpha,
            hasICCProfile: image.hasICCProfile)
    }
}
