/// A `thumbgen.toml` preset as `thumbgen site` applies it to the images it names (by a
/// `data-thumbgen-preset` attribute or a `[site.rules]` path rule): the site's own settings
/// for those images, and manifest cells for every row rendered from them.
public struct SitePreset: Sendable, Equatable {
    /// The ladder's widths, the `<source>` formats, the `sizes` and the smallest width, where
    /// the preset sets them; nil: the run's.
    public var widths: [Int]?
    public var formats: [String]?
    public var sizes: String?
    public var minWidth: Int?
    /// `size = "WxH"`: each width of the ladder cut to this aspect (`fit` cover, unless the
    /// preset says contain or fill), and the `<img>`'s `width` and `height` in it.
    public var aspect: Aspect?
    /// The other settings, as the cells of each row (`quality`, `fit`, `sharpen`, `keep`, …):
    /// they beat the run's flags, as a manifest row's own cells do.
    public var cells: [ManifestColumn: String] = [:]

    /// A box's proportions.
    public struct Aspect: Sendable, Equatable {
        public var width: Int
        public var height: Int

        /// `width` for a box `to` wide, rounded.
        func height(forWidth to: Int) -> Int { max(1, Int((Double(to) * Double(height) / Double(width)).rounded())) }
    }

    /// The cells `thumbgen site` writes itself for every row.
    private static let siteColumns: Set<ManifestColumn> = [.src, .out, .dir, .id, .format, .width, .height, .preset]

    /// The preset `name` from its settings as the file gives them (flags' names or columns'
    /// spellings); the error names the key that `thumbgen site` cannot take.
    public init(name: String, settings: [(key: String, value: String)]) throws(SiteError) {
        func bad(_ key: String, _ why: String) -> SiteError { SiteError("[presets.\(name)] \(key): \(why)") }
        for (key, value) in settings {
            let spelled = key.replacingOccurrences(of: "_", with: "-")
            switch spelled {
            case "widths":
                guard let parsed = SiteSettings.widths(value) else { throw bad(key, "takes whole numbers above 0, comma-separated") }
                widths = parsed
            case "formats":
                guard let parsed = SiteSettings.formats(value) else { throw bad(key, "takes webp, avif, jxl or none") }
                formats = parsed
            case "sizes":
                sizes = value
            case "min-width":
                guard let parsed = Int(value), parsed >= 0 else { throw bad(key, "takes a whole number of pixels") }
                minWidth = parsed
            case "size":
                let parts = value.lowercased().split(separator: "x").map { Int($0) }
                guard parts.count == 2, let w = parts[0], let h = parts[1], w > 0, h > 0 else {
                    throw bad(key, "takes WIDTHxHEIGHT, the aspect each width is cut to (the widths are the ladder's)")
                }
                aspect = Aspect(width: w, height: h)
            default:
                guard let column = ManifestColumn(header: spelled.replacingOccurrences(of: "-", with: "_")) else {
                    throw bad(key, "is no setting of an image's outputs (a manifest column, or widths, formats, sizes, min-width)")
                }
                guard !Self.siteColumns.contains(column) else {
                    throw bad(key, "thumbgen site sets it for every output (use widths, formats or size)")
                }
                cells[column] = value
            }
        }
        if aspect != nil {
            switch cells[.fit]?.lowercased() {
            case nil: cells[.fit] = Fit.cover.rawValue
            case Fit.cover.rawValue?, Fit.contain.rawValue?, Fit.fill.rawValue?: break
            case let fit?: throw bad("fit", "\(fit) keeps no aspect: with size = \"WxH\" it is cover, contain or fill")
            }
        }
    }
}

/// A `[site.rules]` line: pages whose path (relative to the site) matches `pattern` have
/// their images made with `preset`, unless an image names its own.
public struct SiteRule: Sendable, Equatable {
    public var pattern: PathPattern
    public var preset: String

    /// The rule `pattern = "preset"`.
    public init(pattern: String, preset: String) {
        self.pattern = PathPattern(pattern)
        self.preset = preset
    }
}
