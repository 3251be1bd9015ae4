import Foundation

extension RunLog.Entry {
    /// The cache's run-log entry for a run of `command` that ended `now` with `summary` (and
    /// its `remote` cache's counts, if it had one).
    public init(_ summary: RunSummary, command: String, remote: RemoteCacheCounts? = nil,
                now: Double = Date().timeIntervalSince1970) {
        self.init(command: command, endedAt: now, rows: summary.rows, hit: summary.cache?.hit ?? 0,
                  miss: summary.cache?.miss ?? 0, revalidated: summary.cache?.revalidated ?? 0,
                  failed: summary.failed, seconds: summary.seconds, remote: remote)
    }
}
