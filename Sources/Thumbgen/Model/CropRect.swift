/// A rectangle given as fractions in [0, 1] of the oriented source (the `crop` column).
public struct CropRect: Sendable, Equatable, Hashable, Codable {
    /// The rectangle's origin and size, as fractions of the source's width and height.
    public var x: Double, y: Double, width: Double, height: Double

    /// Makes a crop rectangle; the caller has checked that it lies within the unit square.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// Whether the rectangle is non-empty and lies inside the unit square.
    public var isValid: Bool {
        x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= 1.000001
            && y + height <= 1.000001
    }
}
