import Foundation

/// Prints records as a manifest thumbgen reads back: CSV (RFC 4180, a header row, a field
/// quoted when it holds a comma, a quote, a line break or white space at either end) or JSON
/// Lines (one object per line, the columns in order, empty cells left out).
public struct ManifestWriter {
    /// The columns, in order.
    public var columns: [ManifestColumn]
    /// Whether to print JSON Lines rather than CSV.
    public var jsonLines: Bool

    /// A writer of `columns`, as CSV unless `jsonLines`.
    public init(columns: [ManifestColumn], jsonLines: Bool) {
        self.columns = columns
        self.jsonLines = jsonLines
    }

    /// The text before the first record: the CSV header line (JSON Lines has none).
    public var header: String {
        jsonLines ? "" : columns.map(\.rawValue).joined(separator: ",") + "\n"
    }

    /// One record, with its line break.
    public func line(_ record: ManifestRecord) -> String {
        if jsonLines {
            var object = JSONObjectText()
            for column in columns { object.add(column.rawValue, record.values[column]) }
            return object.text() + "\n"
        }
        return columns.map { Self.csv(record.values[$0] ?? "") }.joined(separator: ",") + "\n"
    }

    private static func csv(_ field: String) -> String {
        let needsQuotes = field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || field.first?.isWhitespace == true || field.last?.isWhitespace == true
        return needsQuotes ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }
}
