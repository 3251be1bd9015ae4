/// A point of interest as fractions in [0, 1] of the oriented source (the `focus` column):
/// where `cover` and `none` centre their crop, clamped to the image (imgproxy's `fp`).
public struct FocusPoint: Sendable, Equatable, Hashable, Codable {
    /// Across, from the left edge (0) to the right (1).
    public var x: Double
    /// Down, from the top edge (0) to the bottom (1).
    public var y: Double

    /// Makes a focus point; the caller has checked `isValid`.
    public init(x: Double, y: Double) {
        self.x = x; self.y = y
    }

    /// Whether both fractions lie in [0, 1].
    public var isValid: Bool { (0...1).contains(x) && (0...1).contains(y) }

    /// The offset of a `window`-long crop of a `length`-long side whose centre is at `fraction`
    /// of that side, clamped so that the crop stays inside it.
    public static func offset(centredAt fraction: Double, length: Int, window: Int) -> Int {
        let centred = Int((fraction * Double(length) - Double(window) / 2).rounded())
        return min(max(centred, 0), max(length - window, 0))
    }
}
