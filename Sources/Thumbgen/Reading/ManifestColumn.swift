import Foundation

/// The columns a manifest may have (docs/manifest.md); header names are case-insensitive.
public enum ManifestColumn: String, Sendable, CaseIterable, Hashable {
    case src, out, width, height, size, fit, gravity, crop, upscale, kernel, format, quality
    case background, priority, maxAge = "max_age", id, animated, dir, shrinkOnLoad = "shrink_on_load"
    case maxOutputBytes = "max_output_bytes", lossless, jpegSubsample = "jpeg_subsample", focus
    case rotate, flip, sharpen, trim, colour, keep
    case page
    case sourceKey = "source_key"
    /// A preset of `thumbgen.toml` whose settings fill the row's empty cells; expanded before
    /// the row is parsed (`PresetExpansion`), so that it is never part of a recipe.
    case preset

    /// The column a header name means, aliases included (`url`, `source` → `src`).
    public init?(header: String) {
        let name = header.trimmingCharacters(in: .whitespaces).lowercased()
        switch name {
        case "url", "source": self = .src
        case "max-age", "maxage": self = .maxAge
        case "shrink-on-load", "shrinkonload": self = .shrinkOnLoad
        case "max-output-bytes": self = .maxOutputBytes
        case "jpeg-subsample": self = .jpegSubsample
        case "color": self = .colour
        case "source-key", "sourcekey": self = .sourceKey
        default: self.init(rawValue: name)
        }
    }

    /// Hashes the case, not its name. A `String` raw value would otherwise make the standard
    /// library's `RawRepresentable` default hash the name's bytes: a fifth of a warm row's
    /// parsing went to looking up its cells by column.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ordinal)
    }

    /// Compares cases, not names (see `hash(into:)`).
    public static func == (a: ManifestColumn, b: ManifestColumn) -> Bool {
        a.ordinal == b.ordinal
    }

    /// The case's place in the declaration (an index into per-column arrays).
    var ordinal: Int {
        switch self {
        case .src: 0
        case .out: 1
        case .width: 2
        case .height: 3
        case .size: 4
        case .fit: 5
        case .gravity: 6
        case .crop: 7
        case .upscale: 8
        case .kernel: 9
        case .format: 10
        case .quality: 11
        case .background: 12
        case .priority: 13
        case .maxAge: 14
        case .id: 15
        case .animated: 16
        case .dir: 17
        case .shrinkOnLoad: 18
        case .maxOutputBytes: 19
        case .lossless: 20
        case .jpegSubsample: 21
        case .focus: 22
        case .rotate: 23
        case .flip: 24
        case .sharpen: 25
        case .trim: 26
        case .colour: 27
        case .keep: 28
        case .page: 29
        case .sourceKey: 30
        case .preset: 31
        }
    }

    /// One more than the largest `ordinal`: the length of an array indexed by ordinals (some
    /// ordinals may be unused).
    static let ordinalCount = (allCases.map(\.ordinal).max() ?? 0) + 1

    /// The most bytes a cell of this column may hold: a URL (`src`, `source_key`) up to
    /// 8 KiB, what servers commonly take in a request line; any other cell up to 4 KiB, a path's
    /// most on Linux. A longer cell fails its row naming the column, rather than reaching a
    /// system call, a log line or a terminal.
    public var maximumBytes: Int {
        self == .src || self == .sourceKey ? 8_192 : 4_096
    }

    /// The known column names, for error messages.
    public static var knownNames: String {
        allCases.map(\.rawValue).joined(separator: ", ")
    }
}
