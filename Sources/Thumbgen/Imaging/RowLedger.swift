import Synchronization

/// Which of a source's rows have ended: each ends once, with the first of its output or its
/// failure, even when a watch fails it from another thread while its thread still runs.
final class RowLedger: Sendable {
    private let ended: Mutex<[Bool]>
    private let rows: [SourceRender.Row]
    private let listener: SourceRender.Listener

    /// A ledger for `rows`, telling `listener` of each end.
    init(rows: [SourceRender.Row], listener: SourceRender.Listener) {
        ended = Mutex([Bool](repeating: false, count: rows.count))
        self.rows = rows
        self.listener = listener
    }

    /// Whether row `index` has not ended yet.
    func isOpen(_ index: Int) -> Bool {
        ended.withLock { !$0[index] }
    }

    /// Ends row `index` with its output, unless it has ended already.
    func finish(_ index: Int, _ output: SourceRender.Output) {
        if claim(index) { listener.output(index, output) }
    }

    /// Ends row `index` with `failure`, unless it has ended already.
    func fail(_ index: Int, _ failure: ThumbnailFailure) {
        if claim(index) { listener.failure(index, failure) }
    }

    /// Ends each of `indices` as cancelled.
    func cancel(_ indices: [Int]) {
        for index in indices {
            fail(index, .cancelled(rows[index].sourceText))
        }
    }

    private func claim(_ index: Int) -> Bool {
        ended.withLock { ended in
            defer { ended[index] = true }
            return !ended[index]
        }
    }
}
