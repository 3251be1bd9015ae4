import CVips

/// Safe forms of the libvips operations thumbgen uses; each returns a new, lazy image.
extension VipsImageRef {
    /// Runs one shim that writes a new image into its out-parameter, mapping failure to an error.
    static func make(
        _ operation: String,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(ImagingError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = body(&out)
        guard status == 0, let out else {
            if let out { tg_unref(out) }
            throw ImagingError.libvips(operation: operation, message: VipsErrorBuffer.take())
        }
        return VipsImageRef(owning: out)
    }

    /// Applies the EXIF orientation so that the pixels stand upright; drops the tag.
    func autorotated() throws(ImagingError) -> VipsImageRef {
        try Self.make("autorot") { tg_autorot(pointer, $0) }
    }

    /// Cuts out a rectangle.
    func extractArea(x: Int, y: Int, width: Int, height: Int) throws(ImagingError) -> VipsImageRef {
        try Self.make("extract_area") {
            tg_extract_area(pointer, $0, Int32(x), Int32(y), Int32(width), Int32(height))
        }
    }

    /// Scales by separate horizontal and vertical factors with `kernel`.
    func resized(hscale: Double, vscale: Double, kernel: Kernel) throws(ImagingError) -> VipsImageRef {
        try Self.make("resize") { tg_resize(pointer, $0, hscale, vscale, kernel.vipsKernel) }
    }

    /// Shrinks by whole factors with a box filter: each output pixel is the mean of an
    /// `hshrink`×`vshrink` block.
    func boxShrunk(hshrink: Int, vshrink: Int) throws(ImagingError) -> VipsImageRef {
        try Self.make("shrink") { tg_shrink(pointer, $0, Int32(hshrink), Int32(vshrink)) }
    }

    /// Resamples down to `width`×`height` with `kernel` alone (no box shrink first).
    func reduced(toWidth width: Int, height: Int, kernel: Kernel) throws(ImagingError) -> VipsImageRef {
        try Self.make("reduce") {
            tg_reduce(pointer, $0, Double(self.width) / Double(width), Double(self.height) / Double(height),
                      kernel.vipsKernel)
        }
    }

    /// Multiplies colour by alpha, so that resampling does not bleed hidden colours.
    func premultiplied() throws(ImagingError) -> VipsImageRef {
        try Self.make("premultiply") { tg_premultiply(pointer, $0) }
    }

    /// Undoes `premultiplied()`.
    func unpremultiplied() throws(ImagingError) -> VipsImageRef {
        try Self.make("unpremultiply") { tg_unpremultiply(pointer, $0) }
    }

    /// Places the image on a `width`×`height` canvas at `gravity` (a smart one places it like
    /// `center`), padding with `background` (one value per band) or cropping where the canvas
    /// is smaller.
    func placed(
        on width: Int, _ height: Int, at gravity: Gravity, background: [Double]
    ) throws(ImagingError) -> VipsImageRef {
        try Self.make("gravity") { out in
            background.withUnsafeBufferPointer {
                tg_gravity(pointer, out, gravity.compassDirection, Int32(width), Int32(height),
                           $0.baseAddress, Int32($0.count))
            }
        }
    }

    /// What a smart crop keeps: the region that scores highest by this measure.
    enum SmartCropMeasure: Sendable {
        /// The region most likely to draw the eye.
        case attention
        /// The region with the most detail.
        case entropy
    }

    /// Crops to `width`×`height` around the region that scores highest by `measure`.
    func smartCropped(to width: Int, _ height: Int, by measure: SmartCropMeasure)
        throws(ImagingError) -> VipsImageRef
    {
        try Self.make("smartcrop") {
            tg_smartcrop(pointer, $0, Int32(width), Int32(height), measure.vipsInteresting)
        }
    }

    /// Composites the alpha band onto an opaque `background` (one value per colour band).
    func flattened(onto background: [Double]) throws(ImagingError) -> VipsImageRef {
        try Self.make("flatten") { out in
            background.withUnsafeBufferPointer {
                tg_flatten(pointer, out, $0.baseAddress, Int32($0.count))
            }
        }
    }

    /// Turned as `turn` says: rotated clockwise, then mirrored.
    func turned(_ turn: Reorientation) throws(ImagingError) -> VipsImageRef {
        var image = self
        switch turn.degrees {
        case 90: image = try Self.make("rot") { tg_rot(image.pointer, $0, VIPS_ANGLE_D90) }
        case 180: image = try Self.make("rot") { tg_rot(image.pointer, $0, VIPS_ANGLE_D180) }
        case 270: image = try Self.make("rot") { tg_rot(image.pointer, $0, VIPS_ANGLE_D270) }
        default: break
        }
        if turn.mirrorsAcross { image = try Self.make("flip") { tg_flip(image.pointer, $0, VIPS_DIRECTION_HORIZONTAL) } }
        if turn.mirrorsDown { image = try Self.make("flip") { tg_flip(image.pointer, $0, VIPS_DIRECTION_VERTICAL) } }
        return image
    }

    /// sharp's mild sharpen (`sharpen()` without arguments).
    func mildlySharpened() throws(ImagingError) -> VipsImageRef {
        try Self.make("conv") { tg_mild_sharpen(pointer, $0) }
    }

    /// An unsharp mask of Gaussian `sigma`, as sharp's `sharpen({ sigma })`; the image comes
    /// back in its own colour space and band format.
    func sharpened(sigma: Double) throws(ImagingError) -> VipsImageRef {
        let space = colourSpace, format = bandFormat
        var image = try Self.make("sharpen") { tg_sharpen(pointer, $0, sigma) }
        if image.colourSpace != space { image = try image.colourspace(space) }
        if image.bandFormat != format { image = try image.cast(format) }
        return image
    }

    /// The box of pixels that differ from the top-left one by more than `threshold` (left, top,
    /// width, height); nil when every pixel is alike. With alpha, as sharp's `trim()`: the box
    /// of the colours (flattened on the corner's) joined with the box of the alpha band's own
    /// differences, so that a shape on a transparent ground is found even where its colours
    /// match the corner's.
    func trimBox(threshold: Double) throws(ImagingError) -> (x: Int, y: Int, width: Int, height: Int)? {
        var left: Int32 = 0, top: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        guard tg_find_trim(pointer, &left, &top, &width, &height, threshold) == 0 else {
            throw .libvips(operation: "find_trim", message: VipsErrorBuffer.take())
        }
        var box = width > 0 && height > 0 ? (x: Int(left), y: Int(top), width: Int(width), height: Int(height)) : nil
        guard hasAlpha else { return box }
        let alpha = try Self.make("extract_band") { tg_extract_band(pointer, $0, Int32(bands - 1)) }
        guard let shape = try alpha.trimBox(threshold: threshold) else { return box }
        if let colours = box {
            let x = min(colours.x, shape.x), y = min(colours.y, shape.y)
            box = (x, y, max(colours.x + colours.width, shape.x + shape.width) - x,
                   max(colours.y + colours.height, shape.y + shape.height) - y)
        } else {
            box = shape
        }
        return box
    }

    /// Adds an opaque alpha band.
    func withOpaqueAlpha() throws(ImagingError) -> VipsImageRef {
        try Self.make("bandjoin_const1") { tg_bandjoin_const1(pointer, $0, 255) }
    }

    /// The same pixels without EXIF, XMP, IPTC or ICC metadata. `strip` alone is not enough:
    /// libvips 8.14's WebP saver ignores it and rebuilds EXIF from the `exif-ifd*` fields, so
    /// those go too.
    func withoutMetadata() throws(ImagingError) -> VipsImageRef {
        let copy = try Self.make("copy") { tg_copy(pointer, $0) }
        guard let fields = vips_image_get_fields(copy.pointer) else { return copy }
        defer { g_strfreev(fields) }
        var names: [String] = []
        var index = 0
        while let field = fields[index] {
            names.append(String(cString: field))
            index += 1
        }
        let metadata = ["exif-", "xmp-", "iptc-", "icc-profile-", "orientation"]
        for name in names where metadata.contains(where: { name.hasPrefix($0) }) {
            _ = vips_image_remove(copy.pointer, name)
        }
        return copy
    }

    /// `frames` stacked top to bottom as one animation: `page-height` marks the frames, and
    /// the first frame's `delay` and `loop` fields carry over to the savers.
    static func animation(frames: [VipsImageRef]) throws(ImagingError) -> VipsImageRef {
        guard let first = frames.first else {
            throw ImagingError.libvips(operation: "arrayjoin", message: "no frames")
        }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map(\.pointer)
        let joined = try make("arrayjoin") { out in
            tg_arrayjoin_vertical(&pointers, out, Int32(pointers.count))
        }
        return try joined.withPageHeight(first.height)
    }

    /// The same pixels, marked as frames of `height` rows each.
    func withPageHeight(_ height: Int) throws(ImagingError) -> VipsImageRef {
        let copy = try Self.make("copy") { tg_copy(pointer, $0) }
        tg_set_int(copy.pointer, "page-height", Int32(height))
        return copy
    }

    /// A new image header over the same pixels: something of this stage's own to kill, so that
    /// a kill never lands on an image other rows read.
    func copied() throws(ImagingError) -> VipsImageRef {
        try Self.make("copy") { tg_copy(pointer, $0) }
    }

    /// A copy with the ICC profile `profile` attached (a saver told not to strip writes it).
    func withICCProfile(_ profile: [UInt8]) throws(ImagingError) -> VipsImageRef {
        let copy = try copied()
        profile.withUnsafeBytes { vips_image_set_blob_copy(copy.pointer, Self.iccField, $0.baseAddress, $0.count) }
        return copy
    }

    /// Reads every pixel once, in constant memory, to find out whether the data decodes.
    func readAllPixels() throws(ImagingError) {
        var average = 0.0
        guard tg_avg(pointer, &average) == 0 else {
            throw .libvips(operation: "decode", message: VipsErrorBuffer.take())
        }
    }

    /// Renders the whole image into memory, so that several consumers can read it without
    /// decoding the source again (a sequential source can be read only once).
    func copiedToMemory() throws(ImagingError) -> VipsImageRef {
        guard let out = vips_image_copy_memory(pointer) else {
            throw ImagingError.libvips(operation: "copy_memory", message: VipsErrorBuffer.take())
        }
        return VipsImageRef(owning: out)
    }
}

extension Kernel {
    /// The libvips kernel of the same name.
    fileprivate var vipsKernel: VipsKernel {
        switch self {
        case .nearest: return VIPS_KERNEL_NEAREST
        case .linear: return VIPS_KERNEL_LINEAR
        case .cubic: return VIPS_KERNEL_CUBIC
        case .mitchell: return VIPS_KERNEL_MITCHELL
        case .lanczos2: return VIPS_KERNEL_LANCZOS2
        case .lanczos3: return VIPS_KERNEL_LANCZOS3
        }
    }
}

extension Gravity {
    /// Where a fixed gravity places the image; smart ones pad like `center`.
    fileprivate var compassDirection: VipsCompassDirection {
        switch self {
        case .center, .attention, .entropy: return VIPS_COMPASS_DIRECTION_CENTRE
        case .top: return VIPS_COMPASS_DIRECTION_NORTH
        case .bottom: return VIPS_COMPASS_DIRECTION_SOUTH
        case .left: return VIPS_COMPASS_DIRECTION_WEST
        case .right: return VIPS_COMPASS_DIRECTION_EAST
        case .topLeft: return VIPS_COMPASS_DIRECTION_NORTH_WEST
        case .topRight: return VIPS_COMPASS_DIRECTION_NORTH_EAST
        case .bottomLeft: return VIPS_COMPASS_DIRECTION_SOUTH_WEST
        case .bottomRight: return VIPS_COMPASS_DIRECTION_SOUTH_EAST
        }
    }
}

extension VipsImageRef.SmartCropMeasure {
    /// The libvips measure of the same name.
    fileprivate var vipsInteresting: VipsInteresting {
        switch self {
        case .attention: return VIPS_INTERESTING_ATTENTION
        case .entropy: return VIPS_INTERESTING_ENTROPY
        }
    }
}
