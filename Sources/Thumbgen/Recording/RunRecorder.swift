import Foundation
import Synchronization

/// The CPU time this process has used, user and system, in seconds.
enum ProcessCPU {
    static var seconds: Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }
}

/// Receives every row's result from the pipeline's threads: counts it, streams it to the
/// report (if any), and shows it to an observer (the CLI prints failures).
public final class RunRecorder: Sendable {
    private struct State {
        var summary = RunSummary()
        var report: ReportStream?
        var reportError: Error?
    }

    private let state: Mutex<State>
    /// Lines read and not yet handed to the report (`expect`).
    private let expected = Mutex<[Int]>([])
    private let hasReport: Bool
    private let onEach: (@Sendable (RowResult) -> Void)?
    private let alongside: (@Sendable ([RowResult]) -> Void)?

    /// A recorder writing `report` (if given); `onEach` sees each result, one at a time;
    /// `alongside` sees the results recorded together on the thread that finished them,
    /// several threads at once, outside the recorder's lock (for observers that guard
    /// themselves, whose work would otherwise hold up every other row).
    public init(report: sending ReportStream?, alongside: (@Sendable ([RowResult]) -> Void)? = nil,
                onEach: (@Sendable (RowResult) -> Void)? = nil) {
        hasReport = report != nil
        state = Mutex(State(report: report))
        self.onEach = onEach
        self.alongside = alongside
    }

    /// Makes the summary carry cache counts (and warm counts) even if no row reaches them.
    public func expectCache(warm: Bool) {
        state.withLock { $0.summary.expectCache(warm: warm) }
    }

    /// Notes that the record on `line` was read (its place in the report).
    public func expect(line: Int) {
        // Under a lock of its own: the reader notes every row while the rows' threads record
        // theirs under `state`; the lines move over once per `record` call.
        if hasReport { expected.withLock { $0.append(line) } }
    }

    /// Records one row's result.
    public func record(_ result: RowResult) {
        record([result])
    }

    /// Records the results of rows that ended together, under one lock (a warm run's rows
    /// end by the thousand a second on every core; a lock per row was contended).
    public func record(_ results: [RowResult]) {
        // Encoded before the lock (rows finish on several threads at once), one after
        // another in one buffer.
        var records: [UInt8] = []
        var spans: [Range<Int>] = []
        if hasReport {
            records.reserveCapacity(384 * results.count)
            spans.reserveCapacity(results.count)
            for result in results {
                let start = records.count
                result.appendJSON(to: &records)
                spans.append(start..<records.count)
            }
        }
        alongside?(results)
        state.withLock { state in
            if hasReport { takeExpected(into: &state) }
            for (index, result) in results.enumerated() {
                state.summary.count(result)
                if hasReport {
                    do {
                        try state.report?.add(row: result.row, record: records[spans[index]])
                    } catch {
                        state.reportError = state.reportError ?? error
                    }
                }
                onEach?(result)
            }
        }
    }

    /// Hands the lines `expect` noted to the report, in the order they were read (every
    /// line is noted before its row can end, so a row's line is there by its `record`).
    private func takeExpected(into state: inout State) {
        // Swapped out, not copied and emptied: emptying a shared copy "keeping capacity"
        // allocates a new buffer as large, and a manifest read source by source announces
        // every line at once (megabytes, allocated and freed again at every result).
        var lines: [Int] = []
        expected.withLock { swap(&lines, &$0) }
        for line in lines { state.report?.expect(line: line) }
    }

    /// Ends the run: stamps the time, completes the report (saying which `shard` it covers,
    /// if one, and what `--prune` removed, if asked), and returns the summary. Throws when the
    /// report could not be written. `splitSources` is how many sources the reader returned
    /// in more than one stretch.
    public func finish(seconds: Double, shard: ReportShard? = nil, refusedWrites: Int = 0,
                       pruned: [PlacedFile]? = nil, splitSources: Int = 0,
                       pages: [SitePageReport]? = nil) throws -> RunSummary {
        try state.withLock { state in
            takeExpected(into: &state)
            if splitSources > 0 { state.summary.splitSources = splitSources }
            if refusedWrites > 0 { state.summary.cache?.notStored = refusedWrites }
            state.summary.pruned = pruned?.count
            state.summary.seconds = (seconds * 1000).rounded() / 1000
            state.summary.cpuSeconds = (ProcessCPU.seconds * 1000).rounded() / 1000
            state.summary.roundTotals()
            if let error = state.reportError { throw error }
            try state.report?.finish(summary: state.summary, shard: shard, pruned: pruned, pages: pages)
            return state.summary
        }
    }
}
