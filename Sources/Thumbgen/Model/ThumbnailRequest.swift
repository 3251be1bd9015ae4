/// One manifest row, parsed and validated: what to make, from what, and where to put it.
public struct ThumbnailRequest: Sendable {
    /// The 1-based record number in the manifest, counting the header as 1 for CSV.
    public var row: Int
    /// The row's name in reports (the `id` column, else its row number).
    public var id: String
    /// The `src` value as written in the manifest (for messages and reports).
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

    /// Makes a request; the manifest reader is the usual maker.
    public init(row: Int, id: String, sourceText: String, source: SourceLocation,
                outTemplate: String, spec: ThumbnailSpec, priority: Priority = .normal,
                maxAge: Int = 0) {
        self.row = row; self.id = id; self.sourceText = sourceText; self.source = source
        self.outTemplate = outTemplate; self.spec = spec; self.priority = priority
        self.maxAge = maxAge
    }

    /// The default `out` template.
    public static let defaultOutTemplate = "{name}-{w}x{h}.{ext}"

    /// The default `out` template of a row that has a `dir` (a walked tree's): its outputs
    /// mirror the tree. With an empty `dir` it is `defaultOutTemplate`.
    public static let treeOutTemplate = "{dir}/{name}-{w}x{h}.{ext}"
}
