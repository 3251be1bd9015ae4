import Foundation

/// The columns a manifest may have (README.md, Manifest); header names are case-insensitive.
public enum ManifestColumn: String, Sendable, CaseIterable, Hashable {
    case src, out, width, height, size, fit, gravity, crop, upscale, kernel, format, quality
    case background, priority, maxAge = "max_age", id, animated, dir

    /// The column a header name means, aliases included (`url`, `source` → `src`).
    public init?(header: String) {
        let name = header.trimmingCharacters(in: .whitespaces).lowercased()
        switch name {
        case "url", "source": self = .src
        case "max-age", "maxage": self = .maxAge
        default: self.init(rawValue: name)
        }
    }

    /// The known column names, for error messages.
    public static var knownNames: String {
        allCases.map(\.rawValue).joined(separator: ", ")
    }
}
