/// A turn applied after the EXIF orientation (the `rotate` and `flip` columns): a rotation
/// clockwise by a quarter turn or more, then mirrors, as sharp's `rotate()`, `flop()` and
/// `flip()`. The box, the gravity and a focus point then apply to the turned image.
///
/// `ThumbnailGeometry` keeps its region and scaled size in the upright source's pixels (a
/// `crop` is in the upright source's fractions), so that cropping, resampling and the pixels
/// rows share are the same whatever the turn; the renderer turns the scaled pixels, and lays
/// out the canvas after, in the turned image.
public struct Reorientation: Sendable, Equatable, Hashable, Codable {
    /// Clockwise degrees: 0, 90, 180 or 270.
    public var degrees: Int = 0
    /// Mirrored left to right (`flip=h`), after the rotation.
    public var mirrorsAcross = false
    /// Mirrored top to bottom (`flip=v`), after the rotation.
    public var mirrorsDown = false

    /// No turn.
    public init() {}

    /// A turn of `degrees` (0, 90, 180 or 270) and mirrors.
    public init(degrees: Int, mirrorsAcross: Bool = false, mirrorsDown: Bool = false) {
        self.degrees = degrees; self.mirrorsAcross = mirrorsAcross; self.mirrorsDown = mirrorsDown
    }

    /// Whether it changes nothing.
    public var isIdentity: Bool { degrees == 0 && !mirrorsAcross && !mirrorsDown }

    /// Whether width and height trade places.
    public var swapsSides: Bool { degrees == 90 || degrees == 270 }

    /// Its part of a cache key (`r90`, `r0h`, `r270hv`).
    public var identifier: String {
        "r\(degrees)" + (mirrorsAcross ? "h" : "") + (mirrorsDown ? "v" : "")
    }

    /// The rectangle of the upright image that becomes the rectangle (`x`, `y`, `w`, `h`) of the
    /// turned one, which is `turnedWidth` × `turnedHeight`.
    public func uprightRect(_ rect: (x: Double, y: Double, w: Double, h: Double),
                            turnedWidth: Double, turnedHeight: Double) -> (x: Double, y: Double, w: Double, h: Double) {
        var (x, y, w, h) = rect
        if mirrorsAcross { x = turnedWidth - x - w }
        if mirrorsDown { y = turnedHeight - y - h }
        // The upright image's size.
        let (width, height) = swapsSides ? (turnedHeight, turnedWidth) : (turnedWidth, turnedHeight)
        switch degrees {
        case 90: return (y, height - x - w, h, w)
        case 180: return (width - x - w, height - y - h, w, h)
        case 270: return (width - y - h, x, h, w)
        default: return (x, y, w, h)
        }
    }

    /// Where the point at fractions (`x`, `y`) of the upright source lands, in fractions of the
    /// turned image.
    public func turnedPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        var (tx, ty): (Double, Double)
        switch degrees {
        case 90: (tx, ty) = (1 - y, x)
        case 180: (tx, ty) = (1 - x, 1 - y)
        case 270: (tx, ty) = (y, 1 - x)
        default: (tx, ty) = (x, y)
        }
        if mirrorsAcross { tx = 1 - tx }
        if mirrorsDown { ty = 1 - ty }
        return (tx, ty)
    }
}
