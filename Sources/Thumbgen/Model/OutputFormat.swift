/// The encoded format of an output.
public enum OutputFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, webp, avif, jxl, gif, tiff

    /// The file extension used for `{ext}` and for `format=auto` by extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .tiff: return "tif"
        default: return rawValue
        }
    }

    /// Whether the format stores an alpha channel (others are flattened onto `background`).
    public var supportsAlpha: Bool {
        self != .jpeg
    }

    /// Whether the format keeps a one-band grey image grey (the others need three bands).
    public var keepsGrey: Bool {
        switch self {
        case .jpeg, .png, .tiff, .jxl: return true
        case .webp, .avif, .gif: return false
        }
    }

    /// Whether the format can hold an animation (the `animated` column).
    public var canAnimate: Bool {
        self == .gif || self == .webp
    }

    /// The format named by a file extension (`jpg`, `jpeg`, `png`, ...), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "jxl": self = .jxl
        case "gif": self = .gif
        case "tif", "tiff": self = .tiff
        default: return nil
        }
    }

    /// The format a libvips loader reads (`jpegload` → jpeg), if thumbgen can name it.
    init?(loader: String) {
        // Called for every row a worker prepares: suffixes dropped without Foundation's
        // string searches, which showed in a ten-size run's profile.
        var name = Substring(loader)
        for suffix in ["_source", "_buffer"] where name.hasSuffix(suffix) {
            name = name.dropLast(suffix.count)
        }
        guard name.hasSuffix("load") else { return nil }
        switch name.dropLast(4) {
        case "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "heif": self = .avif
        case "jxl": self = .jxl
        case "gif": self = .gif
        case "tiff": self = .tiff
        default: return nil
        }
    }
}

/// The `format` column: a concrete format, or `auto` (decided per row when the source is known).
public enum FormatChoice: Sendable, Hashable, Codable {
    case auto
    case fixed(OutputFormat)
}

extension OutputFormat {
    /// The number that stands for the format on disk (the warm journal): fixed per format, so
    /// that a new format, wherever it is listed, never changes what a stored number means.
    /// `OutputFormatTests` pins every code.
    var storedCode: UInt8 {
        switch self {
        case .jpeg: 0
        case .png: 1
        case .webp: 2
        case .avif: 3
        case .jxl: 4
        case .gif: 5
        case .tiff: 6
        }
    }

    /// The format `storedCode` stands for; nil for a code this version does not know.
    init?(storedCode: UInt8) {
        guard let format = Self.allCases.first(where: { $0.storedCode == storedCode }) else { return nil }
        self = format
    }
}
