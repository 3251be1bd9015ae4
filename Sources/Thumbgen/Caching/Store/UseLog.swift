import Foundation
import Synchronization

/// What a run used of the records the database keeps, written in batches: one transaction at
/// the end of the run (`ThumbnailCache.recordUses`), and one whenever `batch` uses have gathered
/// or `interval` has passed, never a write per row. `cache prune` removes the least recently
/// used first; a use lost to a crash only makes its record look older.
final class UseLog: Sendable {
    private let index: IndexDatabase
    private let state = Mutex(Pending())
    /// Uses gathered before they are written whatever the time.
    static let batch = 4096
    /// Seconds after which gathered uses are written at the next use.
    static let interval = 5.0

    private struct Pending {
        var urls: Set<String> = []
        var since = Date().timeIntervalSince1970
    }

    /// A log writing into `index`.
    init(index: IndexDatabase) {
        self.index = index
    }

    /// Notes that the run used the record of `url`.
    func used(url: String) {
        let due = state.withLock { pending -> Set<String>? in
            pending.urls.insert(url)
            let now = Date().timeIntervalSince1970
            guard pending.urls.count >= Self.batch || now - pending.since >= Self.interval else { return nil }
            defer { pending = Pending() }
            return pending.urls
        }
        if let due { write(urls: due) }
    }

    /// Writes the uses gathered so far.
    func flush() {
        let due = state.withLock { pending -> Set<String> in
            defer { pending = Pending() }
            return pending.urls
        }
        write(urls: due)
    }

    private func write(urls: Set<String>) {
        guard !urls.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        index.transaction { transaction in
            for url in urls {
                transaction.execute("UPDATE urls SET last_used = ? WHERE url = ?", [.real(now), .text(url)])
            }
        }
    }
}
