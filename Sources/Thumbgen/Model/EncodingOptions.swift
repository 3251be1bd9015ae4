/// Per-format encoder settings that change output bytes; run-wide flags, part of every
/// output's cache key. Defaults are sharp's, which users of sharp and imgproxy expect.
public struct EncodingOptions: Sendable, Equatable, Hashable, Codable {
    /// JPEG: progressive scans (`--jpeg-progressive`); baseline by default.
    public var jpegProgressive = false
    /// PNG: quantise to a palette of at most 256 colours (`--png-palette`), much smaller for
    /// flat artwork; `quality` then steers the quantiser.
    public var pngPalette = false
    /// PNG: zlib's level, 0 (none, fastest) to 9 (smallest) (`--png-compression`); libvips'
    /// and sharp's 6 by default.
    public var pngCompression = 6
    /// PNG: the row filter before zlib (`--png-filter`); none by default, as libvips and sharp.
    public var pngFilter = PNGFilter.none
    /// WebP encoder effort 0–6 (`--webp-effort`): higher is smaller and slower.
    public var webpEffort = 4
    /// AVIF encoder effort 0–9 (`--avif-effort`): higher is smaller and slower.
    public var avifEffort = 4
    /// JPEG XL encoder effort 1–9 (`--jxl-effort`).
    public var jxlEffort = 7
    /// GIF palette effort 1–10 (`--gif-effort`).
    public var gifEffort = 7
    /// JPEG: no chroma subsampling, 4:4:4 (`--jpeg-subsample 444`), for sharp red text and
    /// line art; by default (`auto`) libvips' rule: 4:2:0 below quality 90, none from 90 up.
    public var jpegNoSubsampling = false
    /// WebP: lossless (`--webp-lossless`), for graphics and screenshots.
    public var webpLossless = false
    /// WebP: near-lossless preprocessing at this level, 0 (most change) to 100 (none), then a
    /// lossless encode (`--webp-near-lossless N`); nil for none.
    public var webpNearLossless: Int?
    /// AVIF: lossless (`--avif-lossless`).
    public var avifLossless = false
    /// JPEG XL: lossless (`--jxl-lossless`).
    public var jxlLossless = false
    /// The lowest quality the search for a row's `max_output_bytes` goes to (`--min-quality`);
    /// in the key of such rows only.
    public var minQuality = 40

    /// The defaults above.
    public init() {}

    /// The part of `identifier` that can change `format`'s bytes: a flag for another format
    /// leaves the key, and so the cache, of this one alone.
    /// A flag at its default adds nothing, so that every output made before the flag existed
    /// keeps its key, and its bytes.
    func identifier(for format: OutputFormat) -> String {
        switch format {
        case .jpeg: return "jp=\(jpegProgressive ? 1 : 0)" + extras(for: .jpeg)
        case .png: return "pp=\(pngPalette ? 1 : 0)" + pngEffort
        case .webp: return "we=\(webpEffort)" + extras(for: .webp)
        case .avif: return "ae=\(avifEffort)" + extras(for: .avif)
        case .jxl: return "xe=\(jxlEffort)" + extras(for: .jxl)
        case .gif: return "ge=\(gifEffort)"
        case .tiff: return "-"
        }
    }

    /// The stable text form of every option, for a `format=auto` row (its format is known
    /// only once its source is).
    var identifier: String {
        "jp=\(jpegProgressive ? 1 : 0),pp=\(pngPalette ? 1 : 0),we=\(webpEffort),"
            + "ae=\(avifEffort),xe=\(jxlEffort),ge=\(gifEffort)"
            + extras(for: .jpeg) + extras(for: .webp) + extras(for: .avif) + extras(for: .jxl)
            + pngEffort
    }

    /// The key text of the PNG level and filter when not the defaults. Not among `extras`: like an effort,
    /// it changes the bytes but not the look, so a PNG that needs no change may still pass
    /// through as it is.
    private var pngEffort: String {
        (pngCompression == Self().pngCompression ? "" : ",pc=\(pngCompression)")
            + (pngFilter == Self().pngFilter ? "" : ",pf=\(pngFilter.rawValue)")
    }

    /// The key text of `format`'s flags that are not at their default ("" when none is).
    private func extras(for format: OutputFormat) -> String {
        switch format {
        case .jpeg: return jpegNoSubsampling ? ",js=444" : ""
        case .webp: return (webpLossless ? ",wl=1" : "") + (webpNearLossless.map { ",wn=\($0)" } ?? "")
        case .avif: return avifLossless ? ",al=1" : ""
        case .jxl: return jxlLossless ? ",xl=1" : ""
        default: return ""
        }
    }

    /// Whether every flag that changes how `format` encodes (beyond effort) is at its default:
    /// a source may then pass through as it is (`PassThrough`).
    func isDefault(for format: OutputFormat) -> Bool {
        extras(for: format).isEmpty
    }

    /// Whether `format`'s encode is lossless: its quality does not apply.
    func isLossless(_ format: OutputFormat) -> Bool {
        switch format {
        case .webp: webpLossless || webpNearLossless != nil
        case .avif: avifLossless
        case .jxl: jxlLossless
        default: false
        }
    }
}

/// The row filter a PNG's rows go through before zlib (libvips' `filter`): each row stored as
/// its difference to a neighbour, which makes a photograph's rows smaller and faster to pack.
public enum PNGFilter: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Rows as they are (libvips' and sharp's default).
    case none
    /// Each pixel less the one to its left.
    case sub
    /// Each pixel less the one above.
    case up
    /// Each pixel less the mean of left and above.
    case average
    /// Each pixel less Paeth's predictor.
    case paeth
    /// Each row the filter that packs it best (sharp's `adaptiveFiltering`).
    case adaptive
}
