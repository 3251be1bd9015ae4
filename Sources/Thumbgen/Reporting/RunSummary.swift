import Foundation

/// Counts over a run's rows: the report's `summary` and the line printed at the end.
public struct RunSummary: Sendable, Codable, Equatable {
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

    /// An empty summary.
    public init() {}

    /// Counts one more row.
    public mutating func count(_ result: RowResult) {
        rows += 1
        switch result.status {
        case .written: written += 1
        case .unchanged: unchanged += 1
        case .failed: failed += 1
        case .cancelled: cancelled += 1
        }
        if result.status == .failed, let code = result.error?.code {
            errors[code.rawValue, default: 0] += 1
        }
    }

    /// `118 rows: 117 written, 0 unchanged, 1 failed, 0 cancelled in 5.12 s (23.0 rows/s)`.
    public var line: String {
        let rate = seconds > 0 ? String(format: " (%.1f rows/s)", Double(rows) / seconds) : ""
        return "\(rows) rows: \(written) written, \(unchanged) unchanged, \(failed) failed, "
            + "\(cancelled) cancelled in \(String(format: "%.2f", seconds)) s\(rate)"
    }
}
