/// Opens image files through libvips with shrink-on-load and orientation applied, within
/// `ImagingLimits`.
///
/// Files are sniffed by content (`VipsRuntime.loader(for:)`: magic bytes, in Swift), and
/// exactly the one enabled loader that matches opens them; no other loader's code runs. Damaged data fails as `limits.strictness` says,
/// never as grey fill by default; the pixel limit is checked from the header, before any decode.
struct SourceDecoder: Sendable {
    /// The limits every source is held to (pixels, frames, bytes, time, strictness).
    var limits = ImagingLimits()

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
        /// A still WebP's planes, decoded once for all its rows at up to half size
        /// (`WebPPlanes`); nil for other formats.
        var webpPlanes: SharedDecode<WebPPlanes>?
        /// A JPEG's coefficients, read once for its rows at DCT scales below full size
        /// (`JPEGCoefficients`), when its rows need more than one such scale; nil otherwise.
        var jpegCoefficients: SharedDecode<JPEGCoefficients>?
    }

    /// A file sniffed and its first page opened, from which any of its pages is opened
    /// (`open(page:of:)`).
    struct SniffedSource: @unchecked Sendable {
        let path: String
        let loader: String
        /// The first page, as the loader opens it without being asked for one.
        let image: VipsImageRef
    }

    /// Reads a file's header, sniffing its format by content; `page` (counted from 1) chooses
    /// the page or image of a multi-page file, whose header it is. Fails when that page is past
    /// the end or over the pixel limit.
    func open(path: String, page: Int = 1) throws(ImagingError) -> OpenedSource {
        try open(page: page, of: sniff(path: path))
    }

    /// Sniffs the file's format by content and opens its first page. libvips is started first
    /// if nothing has started it (a library caller, a test run alone): its error buffer's lock
    /// does not exist before.
    func sniff(path: String) throws(ImagingError) -> SniffedSource {
        try VipsRuntime.start()
        // Decided before this process's first decode, outside the graph lock, which the check
        // takes; a process that decodes nothing (a warm run's parent) never pays for it.
        _ = VipsResampleCheck.verdict
        let (loader, image) = try openImage(path: path)
        return SniffedSource(path: path, loader: loader, image: image)
    }

    /// Reads the header of page `page` (counted from 1) of `source`; fails when the source has
    /// fewer pages or that page is over the pixel limit.
    func open(page: Int, of source: SniffedSource) throws(ImagingError) -> OpenedSource {
        let path = source.path
        var image = source.image
        if page != 1 {
            let pages = max(1, image.pageCount)
            guard page <= pages else { throw .pageOutOfRange(page: page, pages: pages) }
            image = try VipsImageRef.load(source.loader, path: path, access: .sequential,
                                          strictness: limits.strictness, page: page)
        }
        var header = header(of: image)
        header.page = page
        try checkPixels(header, frames: 1)
        var opened = OpenedSource(path: path, loader: source.loader, image: image, header: header)
        if header.loader == "heifload",
           let width = VipsImageRef.heifThumbnailWidth(path: path, page: page, strictness: limits.strictness),
           width < image.width {
            opened.heifThumbnailScale = Double(width) / Double(image.width)
        }
        if header.loader == "webpload", header.frames == 1 {
            opened.webpPlanes = SharedDecode { WebPPlanes.decode(path: path) }
        }
        return opened
    }

    /// Whether `header`'s frames can be kept: an animated GIF or WebP, upright, from its first
    /// frame (a row that asks for another `page` asks for that one frame).
    static func canAnimate(_ header: ImageHeader) -> Bool {
        header.frames > 1 && header.orientation == 1 && header.page == 1
            && (header.loader == "gifload" || header.loader == "webpload")
    }

    /// Decodes `source` reduced as far as `requiredScale` and `shrinkOnLoad` allow, and
    /// upright; with `allFrames` (only where `canAnimate`), every frame, stacked top to bottom.
    func decode(_ source: OpenedSource, requiredScale: Double, shrinkOnLoad: ShrinkOnLoadMode,
                allFrames: Bool = false)
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
        let access: VipsImageRef.Access = header.orientation == 1 ? .sequential : .random
        let strictness = limits.strictness
        let reopen = access != .sequential || allFrames
        var image = source.image
        var isInMemory = false
        var resampleStrip = 0
        let page = header.page
        switch header.loader {
        case "jpegload":
            let factor = ShrinkOnLoad.jpegFactor(requiredScale: requiredScale, mode: shrinkOnLoad)
            // The pixels come from the coefficients where the source has them (the same
            // pixels, `JPEGCoefficients`), with the header already opened: no load at all.
            if JPEGCoefficients.factors.contains(factor), let coefficients = source.jpegCoefficients?.value(),
               coefficients.size(factor: factor) != nil {
                // Resampled as the stream they stand for would have been (`DecodedImage`).
                if access == .sequential { resampleStrip = VipsImageRef.sequentialReduceStrip }
                image = try coefficients.image(factor: factor, like: source.image)
                isInMemory = true
            } else if factor > 1 || reopen {
                image = try VipsImageRef.loadJPEG(path: path, shrinkFactor: factor, access: access,
                                                  strictness: strictness)
            }
        case "webpload":
            let scale = ShrinkOnLoad.webpScale(requiredScale: requiredScale)
            if !allFrames, scale <= WebPPlanes.largestScale, let planes = source.webpPlanes?.value() {
                image = try planes.image(at: scale, like: source.image)
                isInMemory = true
            } else if scale < 1 || reopen {
                image = try VipsImageRef.loadWebP(path: path, scale: scale, allFrames: allFrames, page: page,
                                                  access: access, strictness: strictness)
            }
        case "pngload" where access == .sequential && !allFrames:
            // Decoded whole by thumbgen's own reader where it takes the file (`PNGPixels`):
            // the pixels `pngload` would stream, resampled as that stream would have been.
            if let pixels = PNGPixels.image(path: path, like: source.image) {
                image = pixels
                isInMemory = true
                resampleStrip = VipsImageRef.sequentialReduceStrip
            }
        case "heifload" where ShrinkOnLoad.heifUsesThumbnail(
            requiredScale: requiredScale, thumbnailScale: source.heifThumbnailScale):
            image = try VipsImageRef.loadHEIFThumbnail(path: path, page: page, access: access, strictness: strictness)
        case let loader where ShrinkOnLoad.drawsVector(loader):
            // Drawn at the density the outputs need: at 1, the page opened already serves.
            let scale = ShrinkOnLoad.vectorScale(requiredScale: requiredScale)
            if scale != 1 || reopen {
                try checkDrawnPixels(header, scale: scale)
                image = try VipsImageRef.loadVector(loader, path: path, page: page, scale: scale,
                                                    access: access, strictness: strictness)
            }
        default:
            if reopen {
                image = try VipsImageRef.load(source.loader, path: path, access: access,
                                              strictness: strictness, allFrames: allFrames, page: page)
            }
        }
        if header.orientation != 1 {
            image = try image.autorotated()
        }
        return DecodedImage(image: image, header: header, frames: allFrames ? header.frames : 1,
                            isInMemory: isInMemory, resampleStrip: resampleStrip, path: path)
    }

    /// The error a full read of the pixels of the file's page `page` meets, or nil when they decode. Used after a
    /// failed encode: libvips decodes lazily, so a broken source only shows up there, and its
    /// process-wide error text cannot say which row's image failed when several fail at once.
    /// `watch` bounds the read and stops it when the run is cancelled.
    func decodeError(path: String, page: Int = 1, watch: StageWatch) -> ImagingError? {
        do {
            // Full size: shrink-on-load of extreme shapes (3×62728) trips libvips assertions.
            let decoded = try decode(open(path: path, page: page), requiredScale: 1, shrinkOnLoad: .exact)
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

    /// A vector drawn at `scale` (above 1 for an `upscale` row) makes more pixels than its
    /// header says: those are held to the pixel limit too.
    private func checkDrawnPixels(_ header: ImageHeader, scale: Double) throws(ImagingError) {
        let pixels = (Double(header.orientedWidth) * scale).rounded() * (Double(header.orientedHeight) * scale).rounded()
        guard pixels <= Double(limits.maxPixels) else {
            throw .overLimit(reason: "drawing \(header.orientedWidth)×\(header.orientedHeight) at \(scale.formatted())× "
                             + "is over the limit of \(limits.maxPixels) pixels (--max-pixels)")
        }
    }

    private func openImage(path: String) throws(ImagingError) -> (String, VipsImageRef) {
        VipsErrorBuffer.clear()
        guard let loader = VipsRuntime.loader(for: path) else {
            VipsErrorBuffer.clear()
            throw .unsupportedFormat(path: path)
        }
        if loader == "pngload", let problem = PNGPreflight.problem(path: path) {
            throw .libvips(operation: "pngload", message: problem)
        }
        let image = try VipsImageRef.load(loader, path: path, access: .sequential,
                                          strictness: limits.strictness)
        return (loader, image)
    }

    private func header(of image: VipsImageRef) -> ImageHeader {
        let orientation = (1...8).contains(image.orientation) ? image.orientation : 1
        let swapped = orientation >= 5
        let colourSpace = image.colourSpace
        return ImageHeader(
            loader: image.loader ?? "unknown",
            orientedWidth: swapped ? image.height : image.width,
            orientedHeight: swapped ? image.width : image.height,
            orientation: orientation,
            frames: max(1, image.pageCount),
            isSRGBOrGrey: colourSpace == .sRGB || colourSpace == .grey,
            isEightBit: image.bandFormat == .uint8,
            hasAlpha: image.hasAlpha,
            hasICCProfile: image.hasICCProfile)
    }
}
