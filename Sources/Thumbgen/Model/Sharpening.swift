/// Sharpening after the resize (the `sharpen` column), as sharp's `sharpen()`.
public enum Sharpening: Sendable, Equatable, Hashable, Codable {
    /// sharp's fast, mild sharpen, only where the output is at most `autoScale` of its region's
    /// size (a large reduction softens most).
    case auto
    /// An unsharp mask of this Gaussian sigma (0.3–10), always.
    case sigma(Double)

    /// The largest scale (output over region, the larger side's) `auto` sharpens at.
    public static let autoScale = 0.5

    /// Its part of a cache key.
    public var identifier: String {
        switch self {
        case .auto: "auto"
        case .sigma(let sigma): "s\(sigma)"
        }
    }

    /// Parses a cell: `auto`, `none` (nil inside `.some`), or a sigma; nil when it is none of them.
    public static func parse(_ text: String) -> Sharpening?? {
        switch text.lowercased() {
        case "none", "off", "": return .some(nil)
        case "auto": return .some(.auto)
        default:
            guard let sigma = Double(text), (0.3...10).contains(sigma) else { return nil }
            return .some(.sigma(sigma))
        }
    }
}
