/// Everything about one output that changes its pixels or bytes: the recipe of a thumbnail.
///
/// Two rows with equal specs over the same source produce identical bytes; `identifier` is the
/// stable text form that goes into cache keys, so every field must appear in it.
public struct ThumbnailSpec: Sendable, Equatable, Hashable, Codable {
    /// The target box (`size`, `width`, `height`).
    public var box: TargetBox = .unbounded
    /// How the source fits the box (`fit`).
    public var fit: Fit = .inside
    /// Where cropping and padding anchor (`gravity`).
    public var gravity: Gravity = .center
    /// The part of the upright source used, before scaling (`crop`).
    public var crop: CropRect?
    /// Where `cover` and `none` centre their crop (fractions of the oriented source); nil: at
    /// `gravity`.
    public var focus: FocusPoint?
    /// `focus=auto`: the focal point comes from the file (`FocusFinder`), into `focus`.
    public var focusFromFile = false
    /// A turn after the EXIF orientation (`rotate`, `flip`).
    public var reorientation = Reorientation()
    /// `trim`: borders within this distance of the top-left pixel's colour are cut first.
    public var trimThreshold: Double?
    /// Sharpening after the resize; nil for none.
    public var sharpening: Sharpening?
    /// The colour space the pixels are written in (`colour`).
    public var colour: ColourOutput = .srgb
    /// The source's metadata the output keeps (`keep`).
    public var keep = KeptMetadata()
    /// Whether a source smaller than the box may grow (`upscale`).
    public var upscale = false
    /// The resampling kernel (`kernel`).
    public var kernel: Kernel = .lanczos3
    /// The output format, or `auto` (`format`).
    public var format: FormatChoice = .auto
    /// 1–100 for every format not in `formatQuality`, or nil for each format's default.
    public var quality: Int?
    /// 1–100 for the formats named (`quality` column `webp=75,avif=50`).
    public var formatQuality: [OutputFormat: Int] = [:]
    /// Padding colour, and what alpha is flattened onto (`background`).
    public var background: RGBAColor = .white
    /// Keep every frame of an animated source when the output format can animate (`animated`).
    public var animated = false
    /// Per-format encoder settings (run-wide flags).
    public var encoding = EncodingOptions()
    /// The most bytes the output may have (`max_output_bytes`): a lossy format's quality is
    /// searched down to fit, no lower than `encoding.minQuality`; nil for no limit.
    public var maxOutputBytes: Int?
    /// How far a JPEG source may shrink while it decodes (column `shrink_on_load`).
    public var shrinkOnLoad: ShrinkOnLoadMode = .balanced
    /// Which page or image of a multi-page source (PDF, TIFF, HEIF) the output shows, counted
    /// from 1 as a PDF viewer counts (`page`).
    public var page = 1

    /// Makes the default spec: `inside`, no box, `center`, `lanczos3`, `auto`, white background.
    public init() {}

    /// A stable, canonical text form of the spec, used in cache keys; bump `recipeVersion` when
    /// the meaning of any field's rendering changes.
    public var identifier: String {
        let formatText: String
        switch format {
        case .auto: formatText = "auto"
        case .fixed(let f): formatText = f.rawValue
        }
        let cropText = crop.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-"
        var parts = [
            "v\(Self.recipeVersion)", "box=\(box)", "fit=\(fit.rawValue)",
            "gravity=\(gravity.rawValue)", "crop=\(cropText)", "upscale=\(upscale)",
            "kernel=\(kernel.rawValue)", "format=\(formatText)",
            "q=\(qualityText)", "bg=\(background)",
            "anim=\(animates)", "enc=\(encodingText)", "sol=\(shrinkOnLoad.rawValue)",
        ]
        // Only a row with a limit has one in its key: every other key is what it was.
        if let maxOutputBytes { parts.append("mob=\(maxOutputBytes),mq=\(encoding.minQuality)") }
        if focusFromFile {
            parts.append("focus=auto")
        } else if let focus {
            parts.append("focus=\(focus.x),\(focus.y)")
        }
        if !reorientation.isIdentity { parts.append("turn=\(reorientation.identifier)") }
        if let sharpening { parts.append("sharpen=\(sharpening.identifier)") }
        if let trimThreshold { parts.append("trim=\(trimThreshold)") }
        if colour != .srgb { parts.append("colour=\(colour.rawValue)") }
        if !keep.isNone { parts.append("keep=\(keep.identifier)") }
        if page != 1 { parts.append("page=\(page)") }
        return parts.joined(separator: ";")
    }

    /// The quality the encoder of `format` is given; nil for its default.
    public func quality(for format: OutputFormat) -> Int? {
        formatQuality[format] ?? quality
    }

    /// The quality as the key holds it: for a known format, the number its encoder is given
    /// (so `webp=75` and a bare `75` make the same WebP, under the same key); for `auto`, the
    /// bare number and, when any, the per-format ones.
    private var qualityText: String {
        if case .fixed(let f) = format { return quality(for: f).map(String.init) ?? "-" }
        let bare = quality.map(String.init) ?? "-"
        guard !formatQuality.isEmpty else { return bare }
        return bare + "," + QualitySetting(all: quality, byFormat: formatQuality).byFormatText
    }

    /// The encoder options that can change this output's bytes.
    private var encodingText: String {
        if case .fixed(let f) = format { return encoding.identifier(for: f) }
        return encoding.identifier
    }

    /// Whether `animated` can change this output (a still format cannot animate).
    private var animates: Bool {
        if case .fixed(let f) = format { return animated && f.canAnimate }
        return animated
    }

    /// The version of thumbgen's rendering recipe; part of every output's cache key.
    /// 3: RGB sources whose embedded profile is sRGB by content skip the profile transform;
    /// reductions by 4 or more box-shrink by whole divisors first (`BoxPreShrink`); small
    /// reduces use libvips' C code, not liborc's (`ResampleChoice.vectorCodeMinimumPixels`).
    /// 4: JPEG sources shrink on load by `shrinkOnLoad` (`balanced` by default: DCT ½ with no
    /// headroom), which is in the identifier.
    /// 5: a still lossy WebP source is decoded once into its planes, and each size up to half
    /// the full size is their area average (`WebPPlanes`), not libwebp's scaled decode: one
    /// decode for all of a source's sizes instead of one per size.
    public static let recipeVersion = 5
}
