import Foundation
import Synchronization

/// What a run used of the cache's records (URL and local-file rows, and the output records it
/// read), written in batches: one transaction at the end of the run
/// (`ThumbnailCache.recordUses`), and one whenever `batch` uses have gathered or `interval` has
/// passed, never a write per row, and never a record file touched. `cache prune` removes the
/// least recently used first; a use lost to a crash only makes its record look older.
final class UseLog: Sendable {
    private let index: IndexDatabase
    private let state = Mutex(Pending())
    /// Uses gathered before they are written whatever the time.
    static let batch = 4096
    /// Seconds after which gathered uses are written at the next use.
    static let interval = 5.0

    private struct Pending {
        var urls: Set<String> = []
        var files: Set<String> = []
        /// Record files read, by kind and name.
        var records: Set<Record> = []
        var since = Date().timeIntervalSince1970
        var count: Int { urls.count + files.count + records.count }
    }

    /// A record file: its kind (`outputs`) and its name.
    struct Record: Hashable, Sendable {
        var kind: CacheLayout.Kind
        var name: String
    }

    /// A log writing into `index`.
    init(index: IndexDatabase) {
        self.index = index
    }

    /// Notes that the run used the record of `url`, last used at `lastUsed` (seconds since
    /// 1970): not when that is within `recentEnough`, so that a warm run over URL rows writes no
    /// use per row each run. A planner that only looks notes nothing.
    func used(url: String, lastUsed: Double, looksOnly: Bool) {
        guard !looksOnly, Date().timeIntervalSince1970 - lastUsed > Self.recentEnough else { return }
        note { $0.urls.insert(url) }
    }

    /// The same for the row of the local file at `path` (`FileIndex`).
    func used(file path: String, lastUsed: Double, looksOnly: Bool) {
        guard !looksOnly, Date().timeIntervalSince1970 - lastUsed > Self.recentEnough else { return }
        note { $0.files.insert(path) }
    }

    /// Notes that the run read the record file `name` of `kind` (instead of touching it), which
    /// was `written` (seconds since 1970). A record written in the last `recentEnough` seconds
    /// needs no note: its writing noted a use (`stored`). A planner that only looks notes
    /// nothing. (A record file's earlier uses are not looked up: the slow path that reads it
    /// is rare once the warm journal vouches for its row.)
    func used(_ kind: CacheLayout.Kind, _ name: String, written: Double, looksOnly: Bool) {
        guard !looksOnly, Date().timeIntervalSince1970 - written > Self.recentEnough else { return }
        note { $0.records.insert(Record(kind: kind, name: name)) }
    }

    /// Notes that the run wrote the record file `name` of `kind`: its first use.
    func stored(_ kind: CacheLayout.Kind, _ name: String, looksOnly: Bool) {
        guard !looksOnly else { return }
        note { $0.records.insert(Record(kind: kind, name: name)) }
    }

    /// Seconds within which a record's writing, or its last recorded use, stands for this use
    /// (the first warm run after a cold one reads every record the cold one wrote: 120,000
    /// notes for nothing), as a record file's mark was refreshed at most every ten minutes.
    static let recentEnough = 600.0

    private func note(_ add: (inout Pending) -> Void) {
        let due = state.withLock { pending -> Pending? in
            add(&pending)
            let now = Date().timeIntervalSince1970
            guard pending.count >= Self.batch || now - pending.since >= Self.interval else { return nil }
            defer { pending = Pending() }
            return pending
        }
        if let due { write(due) }
    }

    /// Writes the uses gathered so far.
    func flush() {
        let due = state.withLock { pending -> Pending in
            defer { pending = Pending() }
            return pending
        }
        write(due)
    }

    private func write(_ pending: Pending) {
        guard pending.count > 0 else { return }
        let now = Date().timeIntervalSince1970
        index.transaction { transaction in
            for url in pending.urls {
                transaction.execute("UPDATE urls SET last_used = ? WHERE url = ?", [.real(now), .text(url)])
            }
            for path in pending.files {
                transaction.execute("UPDATE files SET last_used = ? WHERE path = ?", [.real(now), .text(path)])
            }
            for record in pending.records {
                transaction.execute("""
                    INSERT INTO uses (kind, key, last_used) VALUES (?, ?, ?)
                    ON CONFLICT (kind, key) DO UPDATE SET last_used = excluded.last_used
                    """, [.text(record.kind.rawValue), .text(record.name), .real(now)])
            }
        }
    }

    /// The last uses on record of `kind`'s record files, by name.
    static func lastUses(of kind: CacheLayout.Kind, in index: IndexDatabase) -> [String: Double] {
        var uses: [String: Double] = [:]
        index.query("SELECT key, last_used FROM uses WHERE kind = ?", [.text(kind.rawValue)]) { row in
            if let key = row.text(0) { uses[key] = row.real(1) }
        }
        return uses
    }
}
