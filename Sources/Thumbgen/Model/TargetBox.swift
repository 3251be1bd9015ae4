/// The target box in pixels; a missing side follows the source's aspect ratio, and a box with
/// neither side keeps the source's size.
public struct TargetBox: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// The box's width in pixels, or nil to follow the aspect ratio.
    public var width: Int?
    /// The box's height in pixels, or nil to follow the aspect ratio.
    public var height: Int?

    /// Makes a box; sides, when given, are positive.
    public init(width: Int?, height: Int?) {
        self.width = width
        self.height = height
    }

    /// No box: the output keeps the source's size.
    public static let unbounded = TargetBox(width: nil, height: nil)

    /// Parses `WxH`, `W`, `xH` or `Wx` (positive integers); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        func side(_ s: Substring) -> Int?? {
            if s.isEmpty { return .some(nil) }
            guard s.allSatisfy(\.isASCIIDigit), let v = Int(s), v > 0 else { return nil }
            return .some(v)
        }
        guard let w = side(parts[0]) else { return nil }
        let h: Int?? = parts.count == 2 ? side(parts[1]) : .some(nil)
        guard let h, w != nil || h != nil else { return nil }
        self.init(width: w, height: h)
    }

    /// `WxH` with an empty side where it is free.
    public var description: String {
        "\(width.map(String.init) ?? "")x\(height.map(String.init) ?? "")"
    }
}

extension Character {
    /// Whether this is one of the ASCII digits 0–9 (`isNumber` also accepts other scripts').
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
