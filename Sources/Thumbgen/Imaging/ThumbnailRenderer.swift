/// Turns a decoded source into one output's pixels: crop, resample, colour, turn (`rotate`,
/// `flip`), sharpen, alpha, canvas (at the gravity, or centred on a `focus` point).
///
/// The result is lazy: libvips computes it during the encode, so the CPU cost lands there,
/// except for scaled pixels that several rows share (`SharedScale`), which are made once.
struct ThumbnailRenderer: Sendable {
    /// Builds the output image of `spec`, laid out as `plan` (the decode works it out once per
    /// row), from `decoded`, for writing as `format`. `shared`, when other rows of the decode
    /// need the same scaled pixels (`scaleKey`), holds them. `watch` bounds and cancels the
    /// evaluations made here (smart crop, shared pixels).
    func render(_ decoded: DecodedImage, spec: ThumbnailSpec, plan: ThumbnailGeometry, format: OutputFormat,
                shared: SharedScale? = nil, watch: StageWatch) throws(ImagingError) -> VipsImageRef
    {
        // Steps 1 to 3. Pixels in memory are resampled in C first, outside the graph lock (it
        // is pixel work, not graph building); building libvips' resamplers compiles vector
        // code, which must not overlap (VipsGraphLock).
        func scaledAndColoured() throws(ImagingError) -> VipsImageRef {
            let resampled = resampledInC(decoded, plan: plan, spec: spec)
            return try VipsGraphLock.withLock { () throws(ImagingError) -> VipsImageRef in
                try scaleAndColour(decoded, plan: plan, spec: spec, format: format, resampled: resampled)
            }
        }
        let coloured: VipsImageRef
        if let shared {
            coloured = try shared.pixels { () throws(ImagingError) -> VipsImageRef in
                // Other rows read these pixels: this row's watch must not kill them afterwards.
                try inMemory(scaledAndColoured(), watch: watch, keepWatching: false)
            }
        } else {
            coloured = try scaledAndColoured()
        }
        let frames = decoded.frames
        let scaled = try VipsGraphLock.withLock { () throws(ImagingError) -> VipsImageRef in
            // 3½. A turn and sharpening (`ThumbnailRenderer+Turn.swift`).
            let turned = try turnedAndSharpened(coloured, spec: spec, plan: plan, frames: frames)
            return try alpha(turned, plan: plan, spec: spec, format: format)
        }
        let scaledHeight = scaled.height / frames
        let cropsOnly = plan.canvasWidth <= scaled.width && plan.canvasHeight <= scaledHeight
        let resized = plan.canvasWidth != scaled.width || plan.canvasHeight != scaledHeight
        // 5. Canvas: pad (contain) or crop (cover, none) to the final size at the gravity;
        // a smart gravity crops where libvips finds the most attention or entropy (on a still
        // image only: on an animation the crop would jump from frame to frame).
        // A focal point centres the crop on itself, clamped to the image, whatever the gravity.
        if cropsOnly, resized, let focus = spec.focus {
            return try focusCropped(scaled, on: focus, decoded: decoded, spec: spec, plan: plan)
        }
        if frames == 1, cropsOnly, resized, let measure = spec.gravity.smartCropMeasure {
            // vips_smartcrop reads every pixel while it is built, and the encode reads them
            // again: a source opened for one sequential pass cannot serve both ("out of order
            // read"). So the scaled pixels are made once, into memory, here: outside the graph
            // lock, under the deadline and cancellable. Shared decode or not, smart crop then
            // sees the same pixels, and its own analysis reads only this small image.
            let pixels = try inMemory(scaled, watch: watch)
            return try VipsGraphLock.withLock { () throws(ImagingError) -> VipsImageRef in
                try pixels.smartCropped(to: plan.canvasWidth, plan.canvasHeight, by: measure)
            }
        }
        return try VipsGraphLock.withLock { () throws(ImagingError) -> VipsImageRef in
            var image = scaled
            if resized {
                let grey = image.colourSpace == .grey
                var background = spec.background.colour(grey: grey)
                if image.hasAlpha { background.append(Double(spec.background.alpha)) }
                image = try eachFrame(of: image, frames: frames) { frame throws(ImagingError) in
                    try frame.placed(on: plan.canvasWidth, plan.canvasHeight,
                                     at: spec.gravity, background: background)
                }
            }
            // The savers tell frames apart by `page-height`, which still holds the source's.
            return frames > 1 ? try image.withPageHeight(plan.canvasHeight) : image
        }
    }

    /// `image` evaluated into memory under `watch` (bounded, cancellable, on a copy of its own
    /// so that the kill never lands on an image other rows read); with `keepWatching`, the
    /// watch then stops the evaluations that read the result (smart crop's analysis).
    private func inMemory(_ image: VipsImageRef, watch: StageWatch,
                          keepWatching: Bool = true) throws(ImagingError) -> VipsImageRef {
        let own = try image.copied()
        watch.enter("render", evaluating: own)
        let pixels = try own.copiedToMemory()
        if keepWatching {
            watch.enter("render", evaluating: pixels)
        } else {
            watch.enter("render")
        }
        return pixels
    }

    /// What decides the pixels of steps 1 to 3 for this row: rows of one decode with equal keys
    /// can share them (`SharedScale`).
    static func scaleKey(_ decoded: DecodedImage, spec: ThumbnailSpec, plan: ThumbnailGeometry,
                         format: OutputFormat) -> SharedScale.Key {
        let (x, y, w, h) = region(decoded, plan: plan)
        let colourSpace = decoded.image.colourSpace
        let sourceIsGrey = colourSpace == .grey || colourSpace == .grey16
        let target = colourTarget(decoded, spec: spec, format: format)
        return SharedScale.Key(x: x, y: y, width: w, height: h, scaledWidth: plan.scaledWidth,
                               scaledHeight: plan.scaledHeight, kernel: spec.kernel,
                               grey: target.allowsGrey(sourceIsGrey && format.keepsGrey && spec.background.isGrey),
                               colour: target)
    }

    /// The region of step 1, in working pixels (the decoded image may be shrunk on load).
    private static func region(_ decoded: DecodedImage, plan: ThumbnailGeometry) -> (Int, Int, Int, Int) {
        func clamp(_ v: Int, _ lo: Int, _ hi: Int) -> Int { min(max(v, lo), max(lo, hi)) }
        let frameWidth = decoded.image.width, frameHeight = decoded.frameHeight
        let x = clamp(Int((plan.regionX * decoded.scaleX).rounded()), 0, frameWidth - 1)
        let y = clamp(Int((plan.regionY * decoded.scaleY).rounded()), 0, frameHeight - 1)
        let w = clamp(Int((plan.regionWidth * decoded.scaleX).rounded()), 1, frameWidth - x)
        let h = clamp(Int((plan.regionHeight * decoded.scaleY).rounded()), 1, frameHeight - y)
        return (x, y, w, h)
    }

    /// Steps 1 to 3, run once over the whole image; for an animation (frames stacked top to
    /// bottom) only cutting goes frame by frame, while resampling and colour run once over
    /// the stack, as `vips_thumbnail` does: 400 resamplers would cost 15 times the memory of
    /// one (measured: 731 MB against 52 MB for 400 frames of 400×300).
    /// `resampled`, when given, is steps 1 and 2 made already (`resampledInC`).
    private func scaleAndColour(_ decoded: DecodedImage, plan: ThumbnailGeometry, spec: ThumbnailSpec,
                                format: OutputFormat, resampled: VipsImageRef?) throws(ImagingError) -> VipsImageRef
    {
        let target = Self.colourTarget(decoded, spec: spec, format: format)
        let keepGrey = target.allowsGrey(format.keepsGrey && spec.background.isGrey)
        if let resampled { return try toOutputColour(resampled, grey: keepGrey, target: target) }
        let frames = decoded.frames
        var image = decoded.image
        let frameWidth = image.width, frameHeight = decoded.frameHeight

        // 1. The region, in working pixels.
        let (x, y, w, h) = Self.region(decoded, plan: plan)
        if x != 0 || y != 0 || w != frameWidth || h != frameHeight {
            image = try eachFrame(of: image, frames: frames) { frame throws(ImagingError) in
                try frame.extractArea(x: x, y: y, width: w, height: h)
            }
        }

        // 2. Resample, premultiplied so that transparent pixels do not bleed their colour.
        if plan.scaledWidth != w || plan.scaledHeight != h {
            image = try resample(image, toWidth: plan.scaledWidth, height: plan.scaledHeight * frames,
                                 kernel: spec.kernel, frames: frames)
            guard image.height == plan.scaledHeight * frames else {
                throw .libvips(operation: "resize", message: "\(frames) frames came out "
                               + "\(image.height) rows high, not \(plan.scaledHeight * frames)")
            }
        }

        // 3. Colour after resampling: fewer pixels go through the (slow) profile transform.
        // Grey stays grey where the format can store it and no colour is painted in.
        return try toOutputColour(image, grey: keepGrey, target: target)
    }

    /// Steps 1 and 2 done by the C resampler, with the bytes libvips' operations would make
    /// (`VipsImageRef.resampledInMemory`): a still image whose pixels are in memory already,
    /// shrinking. Nil otherwise, and then `scaleAndColour` builds libvips' operations. For a
    /// small output, building those cost more than running them (`docs/performance.md`).
    private func resampledInC(_ decoded: DecodedImage, plan: ThumbnailGeometry,
                              spec: ThumbnailSpec) -> VipsImageRef? {
        guard decoded.frames == 1, decoded.isInMemory else { return nil }
        let (x, y, w, h) = Self.region(decoded, plan: plan)
        let choice = ResampleChoice(width: w, height: h, targetWidth: plan.scaledWidth,
                                    targetHeight: plan.scaledHeight, kernel: spec.kernel, frames: 1)
        return decoded.image.resampledInMemory(x: x, y: y, width: w, height: h,
                                               toWidth: plan.scaledWidth, height: plan.scaledHeight,
                                               kernel: spec.kernel, preShrink: choice.preShrink,
                                               vectorCode: choice.vectorCode, strip: decoded.resampleStrip)
    }

    /// Whether `resampledInC` makes this row's scaled pixels from `decoded` once its pixels are
    /// held in memory (`SourceRender.holdsAlone` asks before holding them).
    static func resamplesInC(_ decoded: DecodedImage, plan: ThumbnailGeometry, kernel: Kernel) -> Bool {
        guard decoded.frames == 1 else { return false }
        let (x, y, w, h) = region(decoded, plan: plan)
        return decoded.image.resamplesInMemory(x: x, y: y, width: w, height: h, toWidth: plan.scaledWidth,
                                               height: plan.scaledHeight, kernel: kernel)
    }

    /// Step 4, for `format`.
    private func alpha(_ scaled: VipsImageRef, plan: ThumbnailGeometry, spec: ThumbnailSpec,
                       format: OutputFormat) throws(ImagingError) -> VipsImageRef
    {
        var image = scaled
        let grey = image.colourSpace == .grey

        // 4. Alpha: flattened for formats without it; added where padding must be transparent.
        let willPad = plan.canvasWidth > plan.scaledWidth || plan.canvasHeight > plan.scaledHeight
        if image.hasAlpha && !format.supportsAlpha {
            image = try image.flattened(onto: spec.background.colour(grey: grey))
        } else if !image.hasAlpha && willPad && format.supportsAlpha && spec.background.alpha < 255 {
            image = try image.withOpaqueAlpha()
        }
        return image
    }

    /// `body` applied to each of the `frames` frames stacked in `image`, stacked again (the
    /// image itself when there is one frame).
    func eachFrame(of image: VipsImageRef, frames: Int,
                           _ body: (VipsImageRef) throws(ImagingError) -> VipsImageRef)
        throws(ImagingError) -> VipsImageRef
    {
        guard frames > 1 else { return try body(image) }
        let height = image.height / frames
        var results: [VipsImageRef] = []
        for index in 0..<frames {
            results.append(try body(image.extractArea(x: 0, y: index * height, width: image.width,
                                                      height: height)))
        }
        return try VipsImageRef.animation(frames: results)
    }

    /// `input` resampled to `width`×`height` by libvips' operations, as `ResampleChoice` says
    /// (`VipsResampleCheck` holds the C resampler against it); the caller holds `VipsGraphLock`.
    func resample(_ input: VipsImageRef, toWidth width: Int, height: Int,
                          kernel: Kernel, frames: Int) throws(ImagingError) -> VipsImageRef {
        let hscale = Double(width) / Double(input.width)
        let vscale = Double(height) / Double(input.height)
        let choice = ResampleChoice(width: input.width, height: input.height, targetWidth: width,
                                    targetHeight: height, kernel: kernel, frames: frames)
        let preShrink = choice.preShrink
        func scaled(_ image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
            try VipsRuntime.withVectorCode(choice.vectorCode) { () throws(ImagingError) in
                guard let preShrink else { return try image.resized(hscale: hscale, vscale: vscale, kernel: kernel) }
                return try image.boxShrunk(hshrink: preShrink.horizontal, vshrink: preShrink.vertical)
                    .reduced(toWidth: width, height: height, kernel: kernel)
            }
        }
        guard input.hasAlpha else { return try scaled(input) }
        let format = input.bandFormat
        return try scaled(input.premultiplied())
            .unpremultiplied()
            .cast(format)
    }
}

extension Gravity {
    /// The measure a smart gravity crops by; nil for fixed positions.
    var smartCropMeasure: VipsImageRef.SmartCropMeasure? {
        switch self {
        case .attention: return .attention
        case .entropy: return .entropy
        default: return nil
        }
    }
}

extension RGBAColor {
    /// Whether the colour is a shade of grey (red, green and blue equal).
    var isGrey: Bool { red == green && green == blue }

    /// The colour bands for an image that is grey (one value) or colour (three).
    func colour(grey: Bool) -> [Double] {
        grey ? [Double(red)] : [Double(red), Double(green), Double(blue)]
    }
}
