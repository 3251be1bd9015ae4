/// One record of a manifest before its values are interpreted: where it starts, and its cells.
public struct ManifestRecord: Sendable, Equatable {
    /// The 1-based line on which the record starts (the header is line 1 in CSV).
    public var line: Int
    /// Cell values by column; a column the record leaves empty is absent.
    public var values: [ManifestColumn: String]

    /// Makes a record.
    public init(line: Int, values: [ManifestColumn: String]) {
        self.line = line
        self.values = values
    }
}
