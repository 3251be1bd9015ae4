/// The sizes one output goes through, in pixels of the oriented, full-size source (the canvas:
/// of the output, after any `Reorientation`).
///
/// Pure arithmetic, kept apart from libvips so that every fit mode can be tested exactly:
/// `region` is cut out of the source (the `crop` column), scaled to `scaledWidth`×
/// `scaledHeight`, then placed on a `canvasWidth`×`canvasHeight` canvas at the gravity
/// (padding for `contain`, cropping for `cover` and `none`).
public struct ThumbnailGeometry: Sendable, Hashable {
    /// The part of the source used, as x, y, width, height in source pixels.
    public var regionX: Double, regionY: Double, regionWidth: Double, regionHeight: Double
    /// The size the region is scaled to, before any turn (upright).
    public var scaledWidth: Int, scaledHeight: Int
    /// The output's final size.
    public var canvasWidth: Int, canvasHeight: Int

    /// The largest linear scale the output needs from the source: shrink-on-load may reduce
    /// the source by up to this much without losing detail the output keeps.
    public var requiredScale: Double {
        max(Double(scaledWidth) / regionWidth, Double(scaledHeight) / regionHeight)
    }

    /// Plans an output of `spec` from an oriented source of `sourceWidth`×`sourceHeight`.
    public init(sourceWidth: Int, sourceHeight: Int, spec: ThumbnailSpec) {
        let crop = spec.crop ?? CropRect(x: 0, y: 0, width: 1, height: 1)
        let sw = Double(sourceWidth), sh = Double(sourceHeight)
        regionX = (crop.x * sw).rounded()
        regionY = (crop.y * sh).rounded()
        regionWidth = max(1, min(sw - regionX, (crop.width * sw).rounded()))
        regionHeight = max(1, min(sh - regionY, (crop.height * sh).rounded()))
        // The fit works on the turned region; the scaled size goes back to upright pixels.
        let turn = spec.reorientation
        let (rw, rh) = turn.swapsSides ? (regionHeight, regionWidth) : (regionWidth, regionHeight)
        let boxW = spec.box.width.map(Double.init), boxH = spec.box.height.map(Double.init)

        func clampUp(_ s: Double) -> Double { spec.upscale ? s : min(s, 1) }
        func size(_ sx: Double, _ sy: Double) -> (Int, Int) {
            (max(1, Int((rw * sx).rounded())), max(1, Int((rh * sy).rounded())))
        }
        // Scale that fits the region inside the box; with one side given, that side decides.
        let insideScale = min(boxW.map { $0 / rw } ?? .infinity, boxH.map { $0 / rh } ?? .infinity)

        var scaled: (Int, Int)
        var canvas: (Int, Int)
        if boxW == nil && boxH == nil {
            scaled = size(1, 1)
            canvas = scaled
        } else {
            switch spec.fit {
            case .none:
                scaled = size(1, 1)
                canvas = (min(spec.box.width ?? scaled.0, scaled.0),
                          min(spec.box.height ?? scaled.1, scaled.1))
            case .inside:
                let s = clampUp(insideScale)
                scaled = size(s, s)
                canvas = scaled
            case .contain:
                let s = clampUp(insideScale)
                scaled = size(s, s)
                canvas = (spec.box.width ?? scaled.0, spec.box.height ?? scaled.1)
            case .cover:
                if let boxW, let boxH {
                    let s = clampUp(max(boxW / rw, boxH / rh))
                    scaled = size(s, s)
                    canvas = (min(Int(boxW), scaled.0), min(Int(boxH), scaled.1))
                } else {
                    let s = clampUp(insideScale)
                    scaled = size(s, s)
                    canvas = scaled
                }
            case .outside:
                let s = clampUp(boxW != nil && boxH != nil ? max(boxW! / rw, boxH! / rh) : insideScale)
                scaled = size(s, s)
                canvas = scaled
            case .fill:
                if let boxW, let boxH {
                    scaled = size(clampUp(boxW / rw), clampUp(boxH / rh))
                } else {
                    let s = clampUp(insideScale)
                    scaled = size(s, s)
                }
                canvas = scaled
            }
        }
        (scaledWidth, scaledHeight) = turn.swapsSides ? (scaled.1, scaled.0) : scaled
        (canvasWidth, canvasHeight) = canvas
    }
}
