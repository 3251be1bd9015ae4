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
        // Read as bytes: every row of a manifest with a `size` column is parsed, and splitting
        // and lower-casing a `String` cost a third of a warm row's parsing.
        var width: Int?, height: Int?, pastX = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (times, overflowTimes) = ((pastX ? height : width) ?? 0).multipliedReportingOverflow(by: 10)
                let (value, overflowAdd) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                guard !overflowTimes, !overflowAdd else { return nil }
                if pastX { height = value } else { width = value }
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                guard !pastX else { return nil }
                pastX = true
            default:
                return nil
            }
        }
        guard width != nil || height != nil, (width ?? 1) > 0, (height ?? 1) > 0 else { return nil }
        self.init(width: width, height: height)
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
