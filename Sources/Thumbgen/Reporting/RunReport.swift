import Foundation

/// The `--report` document: a summary and one record per row (schema documented in README.md).
public struct RunReport: Sendable, Codable, Equatable {
    /// Counts per status, and per error code for failed rows.
    public struct Summary: Sendable, Codable, Equatable {
        /// Rows read from the manifest.
        public var rows = 0
        /// Rows whose output was written.
        public var written = 0
        /// Rows whose output already held the same bytes.
        public var unchanged = 0
        /// Rows that failed.
        public var failed = 0
        /// Rows cancelled by an interruption.
        public var cancelled = 0
        /// Failed rows per error code.
        public var errors: [String: Int] = [:]
        /// Wall time of the run in seconds.
        public var seconds: Double = 0
    }

    /// The report format's version; bumped when a field changes meaning or disappears.
    public var schema = 1
    /// Counts over all rows.
    public var summary = Summary()
    /// One record per row, in manifest order.
    public var rows: [RowResult] = []

    /// Makes a report from rows in any order.
    public init(rows: [RowResult], seconds: Double) {
        self.rows = rows.sorted { $0.row < $1.row }
        summary.rows = rows.count
        summary.seconds = (seconds * 1000).rounded() / 1000
        for row in rows {
            switch row.status {
            case .written: summary.written += 1
            case .unchanged: summary.unchanged += 1
            case .failed: summary.failed += 1
            case .cancelled: summary.cancelled += 1
            }
            if row.status == .failed, let code = row.error?.code {
                summary.errors[code.rawValue, default: 0] += 1
            }
        }
    }

    /// The report as pretty, key-sorted JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The one-line summary printed at the end of a run.
    public var summaryLine: String {
        let s = summary
        let rate = s.seconds > 0 ? String(format: " (%.1f rows/s)", Double(s.rows) / s.seconds) : ""
        return "\(s.rows) rows: \(s.written) written, \(s.unchanged) unchanged, \(s.failed) failed, "
            + "\(s.cancelled) cancelled in \(String(format: "%.2f", s.seconds)) s\(rate)"
    }
}
