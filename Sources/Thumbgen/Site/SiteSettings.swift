/// What `thumbgen site` makes of each image a page shows.
public struct SiteSettings: Sendable, Equatable {
    /// The widths of the ladder, each kept where the source is at least a quarter wider, and
    /// the source's own width (up to the largest of these) added on top.
    public var widths: [Int] = [320, 640, 960, 1280, 1920]
    /// The formats of the `<source>` elements, best first; the `<img>` falls back to JPEG, or
    /// PNG where the source has alpha.
    public var formats: [String] = ["webp"]
    /// The `sizes` an `<img>` without one of its own gets.
    public var sizes = "100vw"
    /// Sources narrower than this are left alone (`small`).
    public var minWidth = 128
    /// The folder of the site the outputs go in, relative to it.
    public var outFolder = "_thumbgen"
    /// The site's own address (`https://example.org/blog/`): an `src` under it is a file of
    /// the site, its path taken from there; nil: every absolute URL is another site's.
    public var baseURL: String?
    /// The presets an image may name (`data-thumbgen-preset`) or a rule may give it.
    public var presets: [String: SitePreset] = [:]
    /// The presets of the file that `thumbgen site` cannot apply (a `format`, a `size` that is
    /// no aspect, …), each with why: a mistake only where an image is to be made with one,
    /// since presets serve every command.
    public var presetProblems: [String: String] = [:]
    /// Path rules, first match wins: the preset of an image that names none.
    public var rules: [SiteRule] = []
    /// Whether other sites' images (`http:`, `https:`, `//host/…`) are downloaded and made
    /// responsive too (`--fetch`), rather than left alone.
    public var fetch = false

    /// The default settings.
    public init() {}

    /// The zlib level of the PNG fallbacks (images with alpha) unless `--png-compression` says
    /// otherwise: a fallback is fetched only by a browser without the `<source>` formats, so
    /// its encode time weighs more than its bytes (docs/site.md has the measured levels).
    public static let fallbackPNGCompression = 2
    /// The row filter of the PNG fallbacks unless `--png-filter` says otherwise (measured
    /// beside the level, docs/site.md).
    public static let fallbackPNGFilter = PNGFilter.sub

    /// The formats `<source>` elements may have.
    public static let modernFormats: Set<String> = ["webp", "avif", "jxl"]

    /// `text` as widths (`320,640`); nil unless whole numbers above 0.
    public static func widths(_ text: String) -> [Int]? {
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) > 0 }) else { return nil }
        return values.compactMap { $0 }
    }

    /// `text` as `<source>` formats (`avif,webp`, or `none`); nil for an unknown one.
    public static func formats(_ text: String) -> [String]? {
        if text.trimmingCharacters(in: .whitespaces).lowercased() == "none" { return [] }
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return names.allSatisfy(modernFormats.contains) ? names : nil
    }

    /// The ladder for a source `width` pixels wide, from `widths`.
    static func ladder(_ widths: [Int], sourceWidth width: Int) -> [Int] {
        let top = min(width, widths.max() ?? width)
        return widths.sorted().filter { $0 * 5 <= top * 4 } + [top]
    }
}

/// The settings one image is made with: the run's, with its preset's on top.
struct ImageSettings: Sendable, Equatable {
    var widths: [Int]
    var formats: [String]
    var sizes: String
    var minWidth: Int
    var preset: String?
    var aspect: SitePreset.Aspect?
    var cells: [ManifestColumn: String]

    init(_ settings: SiteSettings, preset name: String?) {
        let preset = name.flatMap { settings.presets[$0] }
        widths = preset?.widths ?? settings.widths
        formats = preset?.formats ?? settings.formats
        sizes = preset?.sizes ?? settings.sizes
        minWidth = preset?.minWidth ?? settings.minWidth
        self.preset = name
        aspect = preset?.aspect
        cells = preset?.cells ?? [:]
    }

    /// The width of the image as made (its own, or the widest its aspect's box cuts from it).
    func usableWidth(_ facts: SourceFacts) -> Int {
        guard let aspect else { return facts.width }
        return min(facts.width, max(1, facts.height * aspect.width / aspect.height))
    }

    /// The ladder for `facts`.
    func ladder(_ facts: SourceFacts) -> [Int] {
        SiteSettings.ladder(widths, sourceWidth: usableWidth(facts))
    }

    /// The `<img>`'s intrinsic size: the source's, or its aspect's box at the ladder's top.
    func intrinsicSize(_ facts: SourceFacts) -> (width: Int, height: Int) {
        guard let aspect else { return (facts.width, facts.height) }
        let top = ladder(facts).last ?? facts.width
        return (top, aspect.height(forWidth: top))
    }
}
