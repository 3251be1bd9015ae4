import Foundation

/// The rows a site plan renders, as a manifest: for each source (once, however many pages
/// show it), each width of its ladder in each `<source>` format and its fallback, written
/// under the output folder as `{dir}/{name}-{w}.{hash8}.{ext}` (the source's folder in the
/// site, a name that changes when the bytes do).
public final class SiteRows: RecordSource {
    /// Sources are absolute paths.
    public let baseDirectory = "/"
    /// Never called: the rows are all in memory.
    public var onWait: (() -> Void)?
    public var sha256: String? { nil }
    /// False: a source's rows come together.
    public var regroups: Bool { false }
    public var onRead: ((Int) -> Void)?
    public var splitSources: Int { 0 }

    /// The template every row's `out` cell holds.
    static let template = "{dir}/{name}-{w}.{hash8}.{ext}"

    private let records: [ManifestRecord]
    private var position = 0

    /// A row for each of `urls` that downloads it into the cache (and renders a 16-px PNG
    /// there): `thumbgen site --fetch` reads the images' sizes from the bodies before it plans.
    public init(downloading urls: [String]) {
        records = urls.enumerated().map { index, url in
            ManifestRecord(line: index + 2, values: [.src: url, .size: "16", .format: "png", .id: "fetch:\(index)"])
        }
    }

    /// The rows of `plan`.
    public init(_ plan: SitePlan) {
        var records: [ManifestRecord] = []
        for (index, source) in plan.sources.enumerated() {
            let folder = Self.folder(of: source.path, root: plan.root)
            let image = source.settings
            for width in image.ladder(source.facts) {
                let size = image.aspect.map { "\(width)x\($0.height(forWidth: width))" } ?? String(width)
                for format in image.formats + [source.facts.fallback] {
                    // The preset's cells first: the site's own win over them.
                    var values = image.cells
                    values[.src] = source.path
                    values[.size] = size
                    values[.format] = format
                    values[.out] = Self.template
                    values[.id] = Self.id(source: index, width: width, format: format)
                    if !folder.isEmpty { values[.dir] = folder }
                    // Lines as a CSV of these rows would number them (the header is line 1).
                    records.append(ManifestRecord(line: records.count + 2, values: values))
                }
            }
        }
        self.records = records
    }

    /// How many rows there are.
    public var count: Int { records.count }

    public func next() throws(ManifestError) -> Result<ManifestRecord, RowError>? {
        guard position < records.count else { return nil }
        defer { position += 1 }
        return .success(records[position])
    }

    /// The id of a row, from which `SiteRewrite` finds what it is for.
    static func id(source: Int, width: Int, format: String) -> String {
        "site:\(source):\(width):\(format)"
    }

    /// The row an id names.
    static func parse(id: String) -> (source: Int, width: Int, format: String)? {
        let parts = id.split(separator: ":")
        guard parts.count == 4, parts[0] == "site", let source = Int(parts[1]), let width = Int(parts[2]) else { return nil }
        return (source, width, String(parts[3]))
    }

    /// The source's folder relative to the site, as a `dir` cell: braces (which a `dir` may
    /// not hold) become underscores. Another site's image (`--fetch`) goes under
    /// `_remote/HOST/` and its URL's folder.
    private static func folder(of path: String, root: String) -> String {
        var relative = String(path.dropFirst(root.count + 1))
        if !path.hasPrefix("/"), let url = URL(string: path), let host = url.host {
            let folders = url.path.split(separator: "/").dropLast().filter { $0 != "." && $0 != ".." }
            relative = (["_remote", host] + folders.map(String.init) + ["x"]).joined(separator: "/")
        }
        let folder = (relative as NSString).deletingLastPathComponent
        return String(folder.map { $0 == "{" || $0 == "}" ? "_" : $0 })
    }
}
