import Synchronization

/// `--drop-larger` and `--budget`: the outputs of a source's rows weighed together before any of
/// them is placed under `--out`.
///
/// A set is a run of consecutive rows with the same source, in the order rows run (as the
/// index groups them): all of a source's rows, since a manifest file's run together
/// (`SourceOrder`), standard input's within its window (`SourceWindow`), and a folder's rows of
/// one image are made together. Each row that has an
/// output waits here (`weigh`) until every row of its set has one or has ended; then:
/// - with `dropLarger`, an output in a modern format (WebP, AVIF, JPEG XL) whose bytes are not
///   fewer than those of the set's fallback (JPEG, else PNG) of the same width is `dropped`;
/// - with `budget`, the outputs left are counted in manifest order, and a row whose output would
///   take the set's total past the budget fails `over_budget` (and is not counted).
///
/// No wait can block the run: a set is closed by the next source's first row before that row
/// waits for a place (`Pipeline.submit`), or by `close()` at the end of the input, and a set's
/// rows never wait for a place while it is open, since a row continuing its source passes the
/// admission gate (`AdmissionGate.enterContinuing`, up to the gate's limit again): so a set
/// holds at most `maximumRows` rows (a source with more is weighed in sets of that many).
final class SourceWeights: Sendable {
    /// What is done with one row's output.
    enum Verdict: Sendable, Equatable {
        /// Placed as usual.
        case place
        /// Not placed: the set's fallback of the same width, `format`, is `bytes` long, no longer.
        case dropped(fallback: OutputFormat, bytes: Int)
        /// Not placed: the set's outputs would come to `total` bytes with it, over `budget`.
        case overBudget(total: Int, budget: Int)
    }

    /// The formats `--drop-larger` weighs, and those it weighs them against, first found first.
    static let modern: Set<OutputFormat> = [.webp, .avif, .jxl]
    static let fallbacks: [OutputFormat] = [.jpeg, .png]

    private struct Waiting {
        var record: OutputRecord
        var then: @Sendable (Verdict) -> Void
    }

    private struct RowSet {
        var source: SourceLocation
        var members: [Int] = []
        var closed = false
        var waiting: [Int: Waiting] = [:]
        var ended: Set<Int> = []
    }

    private struct State {
        /// Open sets by their first row; the last one still takes rows.
        var sets: [Int: RowSet] = [:]
        /// Each row's set, by its first row.
        var setOf: [Int: Int] = [:]
        var current: Int?
    }

    let dropLarger: Bool
    let budget: Int?
    /// The most rows one set holds: fewer than the admission gate lets a source's rows past it.
    let maximumRows: Int
    private let state = Mutex(State())

    /// Weighs as `dropLarger` and `budget` say, in sets of at most `maximumRows` rows.
    init(dropLarger: Bool, budget: Int?, maximumRows: Int = 64) {
        self.dropLarger = dropLarger
        self.budget = budget
        self.maximumRows = max(1, maximumRows)
    }

    /// Notes the next row in manifest order (`Pipeline.submit`): it joins the current set, or,
    /// for another source, closes it and starts the next.
    func join(row: Int, source: SourceLocation) {
        let ready: [(Waiting, Verdict)] = state.withLock { state in
            var ready: [(Waiting, Verdict)] = []
            if let current = state.current, let set = state.sets[current], set.source == source,
               set.members.count < maximumRows {
                state.sets[current]?.members.append(row)
                state.setOf[row] = current
                return ready
            }
            if let current = state.current { ready = closeSet(current, in: &state) }
            state.sets[row] = RowSet(source: source, members: [row])
            state.setOf[row] = row
            state.current = row
            return ready
        }
        Self.hand(ready)
    }

    /// No row follows: the last set is closed.
    func close() {
        let ready: [(Waiting, Verdict)] = state.withLock { state in
            guard let current = state.current else { return [] }
            state.current = nil
            return closeSet(current, in: &state)
        }
        Self.hand(ready)
    }

    /// Row `row`'s output, described by `record`, waits for its set; `then` hears what to do
    /// with it (at once, or from the thread that completes the set). A row not submitted
    /// through `join` is placed at once.
    func weigh(row: Int, record: OutputRecord, then: @escaping @Sendable (Verdict) -> Void) {
        let ready: [(Waiting, Verdict)]? = state.withLock { state in
            guard let first = state.setOf[row], state.sets[first] != nil else { return nil }
            state.sets[first]?.waiting[row] = Waiting(record: record, then: then)
            return completed(first, in: &state)
        }
        guard let ready else { return then(.place) }
        Self.hand(ready)
    }

    /// Row `row` has its result (any): a set waits for no row that ended without an output.
    func ended(row: Int) {
        let ready: [(Waiting, Verdict)] = state.withLock { state in
            guard let first = state.setOf.removeValue(forKey: row), state.sets[first] != nil else { return [] }
            if state.sets[first]?.waiting[row] == nil { state.sets[first]?.ended.insert(row) }
            return completed(first, in: &state)
        }
        Self.hand(ready)
    }

    private func closeSet(_ first: Int, in state: inout State) -> [(Waiting, Verdict)] {
        state.sets[first]?.closed = true
        return completed(first, in: &state)
    }

    /// The verdicts of set `first` when it is closed and each member has an output or has
    /// ended (the set is then forgotten); else none yet.
    private func completed(_ first: Int, in state: inout State) -> [(Waiting, Verdict)] {
        guard let set = state.sets[first], set.closed,
              set.members.allSatisfy({ set.waiting[$0] != nil || set.ended.contains($0) }) else { return [] }
        state.sets[first] = nil
        let outputs = set.members.compactMap { row in set.waiting[row].map { (row, $0.record) } }
        let verdicts = Self.verdicts(outputs, dropLarger: dropLarger, budget: budget)
        return outputs.map { row, _ in (set.waiting[row]!, verdicts[row] ?? .place) }
    }

    /// The verdict of each output of one set, `outputs` in manifest order.
    static func verdicts(_ outputs: [(row: Int, record: OutputRecord)], dropLarger: Bool,
                         budget: Int?) -> [Int: Verdict] {
        var verdicts: [Int: Verdict] = [:]
        if dropLarger {
            for (row, record) in outputs where modern.contains(record.format) {
                let fallback = fallbacks.lazy.compactMap { format in
                    outputs.first { $0.record.format == format && $0.record.width == record.width }
                }.first
                if let fallback, record.bytes >= fallback.record.bytes {
                    verdicts[row] = .dropped(fallback: fallback.record.format, bytes: fallback.record.bytes)
                }
            }
        }
        if let budget {
            var total = 0
            for (row, record) in outputs where verdicts[row] == nil {
                if total + record.bytes > budget {
                    verdicts[row] = .overBudget(total: total + record.bytes, budget: budget)
                } else {
                    total += record.bytes
                }
            }
        }
        return verdicts
    }

    private static func hand(_ ready: [(Waiting, Verdict)]) {
        for (waiting, verdict) in ready { waiting.then(verdict) }
    }
}
