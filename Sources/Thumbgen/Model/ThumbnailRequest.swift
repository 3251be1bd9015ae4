/// One manifest row, parsed and validated: what to make, from what, and where to put it.
public struct ThumbnailRequest: Sendable {
    /// The 1-based record number in the manifest, counting the header as 1 for CSV.
    public var row: Int
    /// The row's name in reports (the `id` column, else its row number).
    public var id: String
    /// The `src` value as written in the manifest, less a URL's user info (for messages and
    /// reports).
    public var sourceText: String
    /// Where the source is.
    public var source: SourceLocation
    /// The `out` template, relative to the output directory.
    public var outTemplate: String
    /// The recipe of the output.
    public var spec: ThumbnailSpec
    /// The row's priority.
    public var priority: Priority
    /// Seconds a fetched source stays fresh (`max_age`); used by the cache.
    public var maxAge: Int
    /// What a URL source is called in the cache when that is not its URL (`source_key`,
    /// `--ignore-query`); nil for the URL itself, and always for a local file.
    public var sourceKey: SourceKey?
    /// The login a URL source's user info gave (taken out of `sourceText` and `source`): sent
    /// to that URL's origin only, and stored nowhere.
    public var login: SourceLogin?

    /// Makes a request; the manifest reader is the usual maker.
    public init(row: Int, id: String, sourceText: String, source: SourceLocation,
                outTemplate: String, spec: ThumbnailSpec, priority: Priority = .normal,
                maxAge: Int = 0, sourceKey: SourceKey? = nil, login: SourceLogin? = nil) {
        self.row = row; self.id = id; self.sourceText = sourceText; self.source = source
        self.outTemplate = outTemplate; self.spec = spec; self.priority = priority
        self.maxAge = maxAge; self.sourceKey = sourceKey; self.login = login
    }

    /// The text a URL source's records are kept under in the cache (the URL index, the remote
    /// cache's URL records, the recipe history): its `sourceKey`, else its URL; nil for a file.
    public var urlIdentity: String? {
        guard case .url(let url) = source else { return nil }
        return sourceKey?.identity ?? url.absoluteString
    }

    /// The default `out` template.
    public static let defaultOutTemplate = "{name}-{w}x{h}.{ext}"

    /// The default `out` template of a row that has a `dir` (a walked tree's): its outputs
    /// mirror the tree. With an empty `dir` it is `defaultOutTemplate`.
    public static let treeOutTemplate = "{dir}/{name}-{w}x{h}.{ext}"
}

/// A URL source's name in the cache, when it is not the URL as written.
public struct SourceKey: Sendable, Hashable {
    /// The text the cache keys the source by.
    public var identity: String
    /// The query parameters `--ignore-query` dropped from the URL to make it (empty for a
    /// `source_key` cell).
    public var dropped: [String]
    /// Whether a `source_key` cell named it (else `--ignore-query` made it).
    public var fromColumn: Bool

    /// A name for a source's records.
    public init(identity: String, dropped: [String] = [], fromColumn: Bool) {
        self.identity = identity; self.dropped = dropped; self.fromColumn = fromColumn
    }
}
