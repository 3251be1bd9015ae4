/// One record of a manifest before its values are interpreted: where it starts, and its cells.
public struct ManifestRecord: Sendable, Equatable {
    /// The 1-based line on which the record starts (the header is line 1 in CSV).
    public var line: Int
    /// Cell values by column; a column the record leaves empty is absent.
    public var values: [ManifestColumn: String]
    /// The columns whose cells are not UTF-8 (their values show the bad bytes as `\xNN`): the
    /// row fails, naming the first.
    public var invalidColumns: [ManifestColumn]

    /// Makes a record.
    public init(line: Int, values: [ManifestColumn: String], invalidColumns: [ManifestColumn] = []) {
        self.line = line
        self.values = values
        self.invalidColumns = invalidColumns
    }
}
