import Synchronization

/// A counter of the database's `generations` table, raised by every change to what it counts
/// (`files`: the file index's rows; `outputs`: the output record files). While it is what a
/// warm journal saw, everything it counts is what the journal read, so the journal trusts it
/// without a look each.
///
/// A process counts its own raises from `track()` on: a journal saved with the generation its
/// own run left is not made to check everything again by that run's own writes.
final class Generation: Sendable {
    /// Its row in `generations`.
    let name: String
    private let index: IndexDatabase
    /// The value as this process left it, while every raise since `track()` was its own; nil
    /// once another process raised it, or a raise failed.
    private let own = Mutex<Int64?>(nil)

    init(_ name: String, in index: IndexDatabase) {
        self.name = name
        self.index = index
    }

    /// The value now; nil without a database.
    func current() -> Int64? {
        var value: Int64?
        index.query("SELECT value FROM generations WHERE name = ?", [.text(name)]) { value = $0.integer(0) }
        return value
    }

    /// `current()`, from which on this process counts its own raises.
    func track() -> Int64? {
        let value = current()
        own.withLock { $0 = value }
        return value
    }

    /// The value now, when every raise since `track()` was this process's own; nil when
    /// another process raised it, or it was not tracked.
    func sinceTracked() -> Int64? {
        own.withLock { $0 }
    }

    /// Raises the generation inside `transaction`; hand what it returns to `raised(from:committed:)`
    /// once the transaction is over.
    func raise(in transaction: inout IndexDatabase.Transaction) -> Int64? {
        var before: Int64?
        transaction.query("SELECT value FROM generations WHERE name = ?", [.text(name)]) { before = $0.integer(0) }
        transaction.execute("UPDATE generations SET value = value + 1 WHERE name = ?", [.text(name)])
        return before
    }

    /// Counts a raise from `before` as this process's own if it committed and nobody else's
    /// came between.
    func raised(from before: Int64?, committed: Bool) {
        own.withLock { own in
            guard committed, let before, own == before else { return own = nil }
            own = before + 1
        }
    }

    /// Raises the generation in a transaction of its own; false when it could not.
    @discardableResult
    func raise() -> Bool {
        var before: Int64?
        let committed = index.transaction { before = raise(in: &$0) }
        raised(from: before, committed: committed)
        return committed
    }
}

/// The changes a process makes to the output record files, fenced by raises of the `outputs`
/// generation: one before its first change, one after its last (at the end of its run), so
/// that a warm journal saved by another process while these changes went on is not trusted
/// with the records afterwards. A change after the closing raise opens the fence again.
final class RecordChanges: Sendable {
    /// The `outputs` generation.
    let generation: Generation
    /// Whether a change was made since the last raise.
    private let open = Mutex(false)

    init(index: IndexDatabase) {
        generation = Generation("outputs", in: index)
    }

    /// Called before a record is written or removed.
    func willChange() {
        open.withLock { open in
            guard !open else { return }
            // Tried once: a raise refused by a database busy past its timeout is not waited for
            // again before every record (`settle` raises at the end all the same).
            generation.raise()
            open = true
        }
    }

    /// Called when the process is done changing records (the end of a run, of a prune).
    func settle() {
        open.withLock { open in
            guard open else { return }
            generation.raise()
            open = false
        }
    }
}
