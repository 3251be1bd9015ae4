/// The part of the upright source an output shows, in source pixels (the report's `crop`):
/// what a `crop` cell, a `cover` or `none` crop, a smart crop or a focus point took.
public struct CropBox: Sendable, Equatable, Hashable, Codable {
    /// The box's left and top edges and its size, in pixels of the upright, full-size source.
    public var x: Int, y: Int, width: Int, height: Int

    /// Makes a box.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// The form a cache record holds: `x,y,width,height`.
    public var stored: String { "\(x),\(y),\(width),\(height)" }

    /// Reads `stored`'s form; nil for anything else.
    public init?(stored: String) {
        let parts = stored.split(separator: ",").compactMap { Int($0) }
        guard parts.count == 4, parts.allSatisfy({ $0 >= 0 }), parts[2] > 0, parts[3] > 0 else { return nil }
        self.init(x: parts[0], y: parts[1], width: parts[2], height: parts[3])
    }
}
