import Dispatch
import Synchronization

/// Gives every output path of a run to one row: no two rows ever write one file.
///
/// Two rows may render to the same path (the same template, `{name}` of two files named alike in
/// different folders, two URLs that differ only in their query). The row that runs first keeps
/// the path (rows run in manifest order, except that a manifest file's rows run source by
/// source, `SourceOrder`: "earlier" below means earlier in that order, the order rows are
/// `expect`ed in); a later row with identical bytes (same source, same recipe) is
/// `unchanged`, and one with other bytes fails with `output_conflict`, naming the row that has
/// it. Rows finish out of order, so a row whose path an earlier, unfinished row could still
/// take waits here, without holding a thread, until that row has claimed a path or ended. Rows
/// whose templates cannot meet never wait for each other (`OutputPathPattern`).
///
/// Memory: one small entry per path claimed (a 64-bit hash of it, the row, a prefix of the
/// bytes' digest: about 40 bytes with the table's overhead), and one per row in flight. Two
/// paths whose hashes meet are taken for one: with a million outputs that happens once in
/// tens of millions of runs, and costs a wrong `output_conflict`, never a lost file.
final class OutputClaims: Sendable {
    /// What a row may do with the path it asked for.
    enum Decision: Equatable, Sendable {
        /// Write it: the path is the row's.
        case write
        /// An earlier row writes the very same bytes there: nothing to do.
        case identical(row: Int)
        /// An earlier row writes other bytes there.
        case conflict(row: Int)
    }


    private struct Owner {
        var row: Int
        var digestPrefix: UInt64
    }

    /// A row asking for a path.
    private struct Request {
        var row: Int
        var path: [UInt8]
        var key: Int
        var digest: UInt64
    }

    /// A request that waits for a decision.
    private struct Parked {
        var request: Request
        var resume: @Sendable (Decision) -> Void
        var row: Int { request.row }
    }

    private struct State {
        var pending = PendingPaths()
        /// Patterns of rows that have a decision but have not ended: put back if the row's
        /// write fails, so that later rows wait for the path the row may still take.
        var decided: [Int: OutputPathPattern] = [:]
        var owners: [Int: Owner] = [:]
        var parked: [Parked] = []
        /// The turn of each row expected and not settled: its place in the order rows were
        /// expected. `pending` is kept by turn.
        var turns: [Int: Int] = [:]
        var nextTurn = 0

        /// `row`'s turn; a row never expected comes after every other.
        func turn(_ row: Int) -> Int { turns[row] ?? Int.max }

        /// Gives `row` the next turn and notes its pattern.
        mutating func expect(_ row: Int, _ pattern: OutputPathPattern?) {
            let turn = turns[row] ?? nextTurn
            if turn == nextTurn {
                turns[row] = turn
                nextTurn += 1
            }
            if let pattern { pending.insert(turn, pattern) }
        }
    }

    private let state = Mutex(State())
    /// Resumes run here, one at a time: a resume writes a file, and many woken at once must not
    /// flood the global pool with blocking writes.
    private let resumes = DispatchQueue(label: "thumbgen.output-claims")
    /// Entered for each resume handed to `resumes`, so that a run waits for their writes.
    private let resuming = DispatchGroup()

    /// An empty set of claims.
    init() {}

    /// Notes that `row` will ask for a path that `pattern` can render to (nil: any). Rows must
    /// be expected in the order they run, before any later row asks for its path.
    func expect(row: Int, pattern: OutputPathPattern?) {
        state.withLock { $0.expect(row, pattern) }
    }

    /// `expect` for several rows, in the order they run, under one lock.
    func expect(_ rows: [(row: Int, pattern: OutputPathPattern?)]) {
        state.withLock { state in
            for (row, pattern) in rows { state.expect(row, pattern) }
        }
    }

    /// Asks for `path` for `row`, whose bytes have the SHA-256 `sha256`: the decision, or nil
    /// when an earlier row could still take the path. Then the row waits, and the closure
    /// `parking` makes hears the decision later, from another thread, once every earlier row
    /// that could take the path has taken one or ended. (`parking` is called only then: a
    /// warm run decides 100,000 rows at once, and a closure made for each cost more than
    /// the decision.)
    func claim(row: Int, path: String, sha256: String,
               parking: () -> @Sendable (Decision) -> Void) -> Decision? {
        let normalized = Self.normalized(path)
        let request = Request(row: row, path: Array(normalized.utf8), key: Self.key(normalized),
                              digest: Self.prefix(sha256))
        let (decision, woken) = state.withLock { state -> (Decision?, [(Parked, Decision)]) in
            guard let decision = Self.decide(request, in: &state) else {
                state.parked.append(Parked(request: request, resume: parking()))
                return (nil, [])
            }
            return (decision, Self.wake(&state))
        }
        self.resume(woken)
        return decision
    }

    /// Notes that `row` has ended (whatever its result): rows waiting on it may go on, and a
    /// request of its own still waiting is dropped (a cancelled row writes nothing).
    func settle(row: Int) {
        settle(rows: CollectionOfOne(row))
    }

    /// `settle` for several rows, under one lock.
    func settle<Rows: Collection>(rows: Rows) where Rows.Element == Int {
        guard !rows.isEmpty else { return }
        let woken = state.withLock { state -> [(Parked, Decision)] in
            var wake = false
            for row in rows {
                if !state.parked.isEmpty { state.parked.removeAll { $0.row == row } }
                state.decided[row] = nil
                guard let turn = state.turns.removeValue(forKey: row) else { continue }
                if state.pending.remove(turn) != nil { wake = true }
            }
            return wake ? Self.wake(&state) : []
        }
        resume(woken)
    }

    /// Gives back `path`, which `row` was told to write but did not (the write failed, or the
    /// cached bytes were missing and the row is rendered instead): later rows no longer see it
    /// taken, and wait again for whatever path the row takes next.
    func release(row: Int, path: String) {
        let key = Self.key(Self.normalized(path))
        let woken = state.withLock { state -> [(Parked, Decision)] in
            if state.owners[key]?.row == row { state.owners[key] = nil }
            if let pattern = state.decided.removeValue(forKey: row), let turn = state.turns[row] {
                state.pending.insert(turn, pattern)
            }
            return Self.wake(&state)
        }
        resume(woken)
    }

    /// Waits until every resume handed on so far has run (their writes are done).
    func waitForResumes() {
        resuming.wait()
    }

    /// The decision for `request`, taking the path when it is the row's; nil while an earlier
    /// pending row could still take it.
    private static func decide(_ request: Request, in state: inout State) -> Decision? {
        let decision = undecided(request, in: &state)
        // Decided, the row takes no other path (unless its write fails: `release`): rows
        // behind it need not wait.
        if decision != nil, let turn = state.turns[request.row], let pattern = state.pending.remove(turn) {
            state.decided[request.row] = pattern
        }
        return decision
    }

    private static func undecided(_ request: Request, in state: inout State) -> Decision? {
        if let owner = state.owners[request.key], owner.row != request.row {
            return owner.digestPrefix == request.digest ? .identical(row: owner.row) : .conflict(row: owner.row)
        }
        let waits = state.pending.anyBefore(state.turn(request.row), canTake: request.path)
        guard !waits else { return nil }
        state.owners[request.key] = Owner(row: request.row, digestPrefix: request.digest)
        return .write
    }

    /// Decides every parked request that can be decided now, in the order the rows run.
    private static func wake(_ state: inout State) -> [(Parked, Decision)] {
        // Every claim and settle asks; nearly always nobody waits (a warm run: 100,000 times).
        guard !state.parked.isEmpty else { return [] }
        var woken: [(Parked, Decision)] = []
        var progress = true
        while progress {
            progress = false
            let turns = state.turns
            state.parked.sort { (turns[$0.row] ?? .max) < (turns[$1.row] ?? .max) }
            for (index, parked) in state.parked.enumerated() {
                if let decision = decide(parked.request, in: &state) {
                    woken.append((parked, decision))
                    state.parked.remove(at: index)
                    progress = true
                    break
                }
            }
        }
        return woken
    }

    /// Resumes woken requests off the caller's thread: a resume writes a file and ends a row,
    /// which may wake more rows in turn.
    private func resume(_ woken: [(Parked, Decision)]) {
        for (parked, decision) in woken {
            resuming.enter()
            resumes.async { [resuming] in
                parked.resume(decision)
                resuming.leave()
            }
        }
    }

    /// `path` with empty and `.` components dropped, so that `a//b` and `./a/b` are `a/b`.
    static func normalized(_ path: String) -> String {
        guard path.containsBytes("//") || path.hasPrefix("./") || path.containsBytes("/./") else { return path }
        return path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    /// The path's hash: Swift's SipHash, seeded per process, which is all a run needs.
    private static func key(_ path: String) -> Int {
        var hasher = Hasher()
        hasher.combine(path)
        return hasher.finalize()
    }

    private static func prefix(_ sha256: String) -> UInt64 {
        UInt64(sha256.prefix(16), radix: 16) ?? 0
    }
}
