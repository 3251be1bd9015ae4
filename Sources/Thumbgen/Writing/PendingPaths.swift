/// The rows that may still ask `OutputClaims` for a path, each with the pattern of the paths it
/// can take, kept in the order the rows run (`row` here is a row's turn in that order, which
/// `OutputClaims` hands out): a claim asks only the rows before it, which on a warm run are
/// the few of the batch another thread is planning, not the whole admission window (scanning
/// every pending row for every claim was 4% of such a run).
///
/// A row that is gone leaves a hole in `entries` until the holes before it are gone too; holes
/// at the front are dropped as they appear, so the array holds about the window's rows.
struct PendingPaths {
    /// Rows in ascending order; a gone row's pattern is nil.
    private var entries: [(row: Int, pattern: OutputPathPattern?)] = []
    /// Where each row still here is in `entries`, counted from the first entry ever kept.
    private var positions: [Int: Int] = [:]
    /// Entries dropped from the front of `entries` so far.
    private var dropped = 0
    /// The first entry that may still be pending: the holes before it wait to be dropped
    /// together.
    private var head = 0

    /// Whether no row is pending.
    var isEmpty: Bool { positions.isEmpty }

    /// Notes that `row` may ask for a path `pattern` matches (again, if it had been removed).
    mutating func insert(_ row: Int, _ pattern: OutputPathPattern) {
        if let position = positions[row] {
            entries[position - dropped].pattern = pattern
            return
        }
        guard let last = entries.last?.row, last > row else {
            positions[row] = dropped + entries.count
            entries.append((row, pattern))
            return
        }
        // Out of order (a row whose write failed asks again): rare, so the positions are
        // made again rather than kept up to date through the shift.
        let at = entries[head...].firstIndex { $0.row > row } ?? entries.count
        entries.insert((row, pattern), at: at)
        positions = [:]
        for (index, entry) in entries.enumerated() where entry.pattern != nil {
            positions[entry.row] = dropped + index
        }
    }

    /// Removes `row`; its pattern, or nil when it was not pending.
    @discardableResult
    mutating func remove(_ row: Int) -> OutputPathPattern? {
        guard let position = positions.removeValue(forKey: row) else { return nil }
        let pattern = entries[position - dropped].pattern
        entries[position - dropped].pattern = nil
        while head < entries.count, entries[head].pattern == nil { head += 1 }
        if head == entries.count {
            dropped += entries.count
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 256 {
            entries.removeFirst(head)
            dropped += head
            head = 0
        }
        return pattern
    }

    /// Whether a pending row before `row` can take the path whose UTF-8 bytes are `path`.
    func anyBefore(_ row: Int, canTake path: [UInt8]) -> Bool {
        for entry in entries[head...] {
            guard entry.row < row else { return false }
            if let pattern = entry.pattern, pattern.matches(path) { return true }
        }
        return false
    }
}
