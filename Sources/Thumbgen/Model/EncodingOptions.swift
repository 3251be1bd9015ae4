/// Per-format encoder settings that change output bytes; run-wide flags, part of every
/// output's cache key. Defaults are sharp's, which users of sharp and imgproxy expect.
public struct EncodingOptions: Sendable, Equatable, Hashable, Codable {
    /// JPEG: progressive scans (`--jpeg-progressive`); baseline by default.
    public var jpegProgressive = false
    /// PNG: quantise to a palette of at most 256 colours (`--png-palette`), much smaller for
    /// flat artwork; `quality` then steers the quantiser.
    public var pngPalette = false
    /// WebP encoder effort 0–6 (`--webp-effort`): higher is smaller and slower.
    public var webpEffort = 4
    /// AVIF encoder effort 0–9 (`--avif-effort`): higher is smaller and slower.
    public var avifEffort = 4
    /// JPEG XL encoder effort 1–9 (`--jxl-effort`).
    public var jxlEffort = 7
    /// GIF palette effort 1–10 (`--gif-effort`).
    public var gifEffort = 7

    /// The defaults above.
    public init() {}

    /// The part of `identifier` that can change `format`'s bytes: a flag for another format
    /// leaves the key, and so the cache, of this one alone.
    func identifier(for format: OutputFormat) -> String {
        switch format {
        case .jpeg: return "jp=\(jpegProgressive ? 1 : 0)"
        case .png: return "pp=\(pngPalette ? 1 : 0)"
        case .webp: return "we=\(webpEffort)"
        case .avif: return "ae=\(avifEffort)"
        case .jxl: return "xe=\(jxlEffort)"
        case .gif: return "ge=\(gifEffort)"
        case .tiff: return "-"
        }
    }

    /// The stable text form of every option, for a `format=auto` row (its format is known
    /// only once its source is).
    var identifier: String {
        "jp=\(jpegProgressive ? 1 : 0),pp=\(pngPalette ? 1 : 0),we=\(webpEffort),"
            + "ae=\(avifEffort),xe=\(jxlEffort),ge=\(gifEffort)"
    }
}
