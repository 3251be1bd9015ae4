/// A problem with the manifest as a whole (exit status 2), as opposed to one bad row.
public enum ManifestError: Error, Equatable, CustomStringConvertible {
    /// The manifest file cannot be opened or read.
    case unreadable(path: String, reason: String)
    /// The CSV header names a column thumbgen does not know.
    case unknownColumn(path: String, column: String)
    /// The CSV header names a column twice (aliases count as the same column).
    case duplicateColumn(path: String, column: String)
    /// The CSV header lacks the `src` column.
    case missingSourceColumn(path: String)
    /// The CSV has no header row at all.
    case empty(path: String)
    /// The file ends inside a quoted field that opened on `line`.
    case unterminatedQuote(path: String, line: Int)

    /// A readable account naming the file, and the column or line.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): cannot read the manifest: \(reason)"
        case .unknownColumn(let path, let column):
            return "\(path): unknown column '\(column)'; known columns: \(ManifestColumn.knownNames)"
        case .duplicateColumn(let path, let column):
            return "\(path): column '\(column)' appears more than once in the header"
        case .missingSourceColumn(let path):
            return "\(path): the header has no 'src' column (or its aliases 'url', 'source')"
        case .empty(let path):
            return "\(path): the manifest is empty; it needs a header row with at least 'src'"
        case .unterminatedQuote(let path, let line):
            return "\(path): line \(line): a quoted field is never closed"
        }
    }
}

/// A problem with one row: the row fails, the others still run.
public struct RowError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The row's line (or record) number.
    public var row: Int
    /// The column at fault, if one is.
    public var column: String?
    /// The offending value, if any.
    public var value: String?
    /// What is wrong, and what would be right.
    public var reason: String

    /// Makes a row error.
    public init(row: Int, column: String? = nil, value: String? = nil, reason: String) {
        self.row = row; self.column = column; self.value = value; self.reason = reason
    }

    /// `row 7, column fit: 'squash' is not ...`.
    public var description: String { "row \(row)" + (column == nil ? ": " : ", ") + detail }

    /// The description without the row: `column fit: 'squash' is not ...`.
    public var detail: String {
        var text = column.map { "column \($0): " } ?? ""
        if let value { text += "'\(value)' " }
        return text + reason
    }
}
