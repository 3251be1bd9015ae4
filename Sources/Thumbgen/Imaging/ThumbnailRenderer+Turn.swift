/// The steps that come after the scaled pixels and before the canvas: a turn (`rotate`,
/// `flip`), sharpening, and a crop centred on a focus point.
extension ThumbnailRenderer {
    /// `coloured` (the scaled pixels, upright) turned as `spec.reorientation` says, then
    /// sharpened as `spec.sharpening` says: on the scaled pixels only, never across a padded
    /// edge. Frame by frame for an animation. Call under `VipsGraphLock`.
    func turnedAndSharpened(_ coloured: VipsImageRef, spec: ThumbnailSpec, plan: ThumbnailGeometry,
                            frames: Int) throws(ImagingError) -> VipsImageRef {
        let turn = spec.reorientation
        var image = turn.isIdentity ? coloured
            : try eachFrame(of: coloured, frames: frames) { frame throws(ImagingError) in try frame.turned(turn) }
        switch spec.sharpening {
        case .auto where plan.requiredScale <= Sharpening.autoScale:
            image = try eachFrame(of: image, frames: frames) { frame throws(ImagingError) in try frame.mildlySharpened() }
        case .sigma(let sigma):
            image = try eachFrame(of: image, frames: frames) { frame throws(ImagingError) in
                try frame.sharpened(sigma: sigma)
            }
        default: break
        }
        return image
    }

    /// The canvas cut out of `scaled` (turned, larger than the canvas on neither side) centred
    /// on `focus`, a point in fractions of the whole upright source, clamped to the image.
    func focusCropped(_ scaled: VipsImageRef, on focus: FocusPoint, decoded: DecodedImage, spec: ThumbnailSpec,
                      plan: ThumbnailGeometry) throws(ImagingError) -> VipsImageRef {
        let frames = decoded.frames, header = decoded.header
        // The point in fractions of the region, upright, then of the turned image.
        let upright = ((focus.x * Double(header.orientedWidth) - plan.regionX) / plan.regionWidth,
                       (focus.y * Double(header.orientedHeight) - plan.regionY) / plan.regionHeight)
        let (across, down) = spec.reorientation.turnedPoint(x: upright.0, y: upright.1)
        let x = FocusPoint.offset(centredAt: across, length: scaled.width, window: plan.canvasWidth)
        let y = FocusPoint.offset(centredAt: down, length: scaled.height / frames, window: plan.canvasHeight)
        return try VipsGraphLock.withLock { () throws(ImagingError) -> VipsImageRef in
            let image = try eachFrame(of: scaled, frames: frames) { frame throws(ImagingError) in
                try frame.extractArea(x: x, y: y, width: plan.canvasWidth, height: plan.canvasHeight)
            }
            return frames > 1 ? try image.withPageHeight(plan.canvasHeight) : image
        }
    }
}
