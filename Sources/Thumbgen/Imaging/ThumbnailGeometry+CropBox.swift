extension ThumbnailGeometry {
    /// The part of the upright `sourceWidth` × `sourceHeight` source the output of `spec` shows
    /// (`CropBox`), nil when it shows all of it. The canvas's window in the scaled image is the
    /// renderer's: centred on `spec.focus`, where libvips' smart crop put it (`smartOffset`, the
    /// window's left and top), or at the gravity as `vips_gravity` places it.
    func cropBox(sourceWidth: Int, sourceHeight: Int, spec: ThumbnailSpec,
                 smartOffset: (x: Int, y: Int)?) -> CropBox? {
        let turn = spec.reorientation
        let (turnedWidth, turnedHeight) = turn.swapsSides ? (scaledHeight, scaledWidth) : (scaledWidth, scaledHeight)
        var window = (x: 0.0, y: 0.0, w: Double(turnedWidth), h: Double(turnedHeight))
        if canvasWidth <= turnedWidth, canvasHeight <= turnedHeight,
           canvasWidth != turnedWidth || canvasHeight != turnedHeight {
            let offset: (Int, Int)
            if let focus = spec.focus {
                let upright = ((focus.x * Double(sourceWidth) - regionX) / regionWidth,
                               (focus.y * Double(sourceHeight) - regionY) / regionHeight)
                let (across, down) = turn.turnedPoint(x: upright.0, y: upright.1)
                offset = (FocusPoint.offset(centredAt: across, length: turnedWidth, window: canvasWidth),
                          FocusPoint.offset(centredAt: down, length: turnedHeight, window: canvasHeight))
            } else if let smartOffset {
                offset = (smartOffset.x, smartOffset.y)
            } else {
                offset = spec.gravity.cropOffset(inner: (canvasWidth, canvasHeight), outer: (turnedWidth, turnedHeight))
            }
            window = (Double(offset.0), Double(offset.1), Double(canvasWidth), Double(canvasHeight))
        }
        let upright = turn.uprightRect(window, turnedWidth: Double(turnedWidth), turnedHeight: Double(turnedHeight))
        let scaleX = regionWidth / Double(scaledWidth), scaleY = regionHeight / Double(scaledHeight)
        let box = CropBox(x: Int((regionX + upright.x * scaleX).rounded()), y: Int((regionY + upright.y * scaleY).rounded()),
                          width: Int((upright.w * scaleX).rounded()), height: Int((upright.h * scaleY).rounded()))
        return box == CropBox(x: 0, y: 0, width: sourceWidth, height: sourceHeight) ? nil : box
    }
}

extension Gravity {
    /// Where `vips_gravity` puts an `inner` window in an `outer` image at least as large: its
    /// left and top (C's division, truncating; a smart gravity places like `center`).
    func cropOffset(inner: (Int, Int), outer: (Int, Int)) -> (Int, Int) {
        let spareX = outer.0 - inner.0, spareY = outer.1 - inner.1
        let x: Int, y: Int
        switch self {
        case .left, .topLeft, .bottomLeft: x = 0
        case .right, .topRight, .bottomRight: x = spareX
        default: x = spareX / 2
        }
        switch self {
        case .top, .topLeft, .topRight: y = 0
        case .bottom, .bottomLeft, .bottomRight: y = spareY
        default: y = spareY / 2
        }
        return (x, y)
    }
}
