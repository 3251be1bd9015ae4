import Foundation
import Synchronization

/// `--dry-run`: the planner without an executor. Says what a run would do for each row (leave
/// an output in place, copy it from the cache, render it, fetch its source) and which rows
/// would fail already, touching nothing: no connection, no decode, no file or cache entry
/// written, no entry marked used or dropped.
///
/// The planner looks as a run would: a local file whose stamp is not on record is read to
/// hash it, cached bytes are checked. A URL that must be fetched or revalidated is planned
/// `fetch`; what the server then says, and whether decoding succeeds, only a run can tell.
public final class DryRun: RowExecutor, Sendable {
    private let planner: RowPlanner
    private let onResult: @Sendable (RowResult) -> Void

    /// A row as the reader gave it: to plan, or refused by the parser already.
    private enum Item: Sendable {
        case plan(ThumbnailRequest)
        case rejected(RowResult)
    }

    private struct State {
        /// Rows read and not yet handed to a work item.
        var batch: [Item] = []
        /// Number of the next batch handed over, and of the next to be delivered.
        var nextBatch = 0
        var nextDelivery = 0
        /// Planned batches waiting for earlier ones, by number.
        var planned: [Int: [RowResult]] = [:]
        var cancelled = false
    }

    private let state = Mutex(State())
    /// Rows are planned `batchSize` at a time on `planning`, at most `inFlight` batches at once
    /// (bounded memory), and their results delivered in manifest order.
    private static let batchSize = 64, inFlight = 4
    private let planning = DispatchQueue(label: "thumbgen.dry-run", attributes: .concurrent)
    private let room = DispatchSemaphore(value: DryRun.inFlight)
    private let working = DispatchGroup()
    /// Held while a batch's results are handed on, so that they go in order, one at a time.
    private let delivering = Mutex(())

    /// A dry run of `configuration` (whose cache should be opened `lookingAt:`); results go to
    /// `onResult`, in manifest order, from any thread.
    public init(configuration: PipelineConfiguration, onResult: @escaping @Sendable (RowResult) -> Void) {
        var planner = RowPlanner(cache: configuration.cache, outputDirectory: configuration.outputDirectory,
                                 limits: configuration.limits, offline: configuration.offline, journaled: true)
        planner.fillsPlaceholders = configuration.makesPlaceholders
        self.planner = planner
        self.onResult = onResult
    }

    /// Plans one row (with the next ones: rows are planned a batch at a time, several batches
    /// at once; a plan is file-system calls, and a million of them one after another took
    /// too long).
    public func submit(_ request: ThumbnailRequest) {
        add(.plan(request))
    }

    /// Reports a row the manifest parser refused (in its place among the others).
    public func reject(_ result: RowResult) {
        add(.rejected(result))
    }

    /// Whether `cancel()` was called: the reader then stops feeding rows.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops planning rows (SIGINT, SIGTERM): a dry run hashes outputs, which takes time.
    public func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// Plans the rows read so far without waiting for a whole batch (a slow pipe).
    public func flush() {
        handOver()
    }

    /// Waits until every row read has been planned and delivered.
    public func waitUntilFinished() {
        handOver()
        working.wait()
    }

    private func add(_ item: Item) {
        let full = state.withLock { state in
            state.batch.append(item)
            return state.batch.count >= Self.batchSize
        }
        if full { handOver() }
    }

    /// Hands the rows read so far to a work item, waiting while `inFlight` are at work.
    private func handOver() {
        let taken = state.withLock { state -> (items: [Item], number: Int)? in
            guard !state.batch.isEmpty else { return nil }
            defer { state.batch = []; state.nextBatch += 1 }
            return (state.batch, state.nextBatch)
        }
        guard let (items, number) = taken else { return }
        room.wait()
        working.enter()
        planning.async { [self] in
            var memo = LocalSourceMemo()
            let results = items.map { item in
                switch item {
                case .plan(let request): plan(request, memo: &memo)
                case .rejected(let result): result
                }
            }
            deliver(results, number: number)
            working.leave()
        }
    }

    /// Hands on `results` (batch `number`) and every later batch already planned, in order,
    /// once the batches before it are handed on. A batch's place in flight is given back only
    /// then, so that a slow batch holds at most `inFlight` planned ones behind it.
    private func deliver(_ results: [RowResult], number: Int) {
        delivering.withLock { _ in
            var ready: [[RowResult]] = []
            state.withLock { state in
                state.planned[number] = results
                while let next = state.planned.removeValue(forKey: state.nextDelivery) {
                    ready.append(next)
                    state.nextDelivery += 1
                }
            }
            for batch in ready {
                batch.forEach(onResult)
                room.signal()
            }
        }
    }

    private func plan(_ request: ThumbnailRequest, memo: inout LocalSourceMemo) -> RowResult {
        let plan = planner.plan(request, memo: &memo)
        if let failure = plan.failure {
            return .failed(row: request.row, id: request.id, src: request.sourceText, failure)
        }
        var result = RowResult(row: request.row, id: request.id, src: request.sourceText, status: .planned)
        result.plan = plan.reported
        result.sourceSHA256 = plan.sourceDigest
        result.out = plan.path
        if plan.path == nil {
            result.outPattern = OutputPathPattern(template: request.outTemplate, name: request.source.stem,
                                                  fit: request.spec.fit, row: request.row)
        }
        if let record = plan.output, plan.action == .keep || plan.action == .copy {
            result.width = record.width
            result.height = record.height
            result.bytes = record.bytes
            result.sha256 = record.sha256
            result.format = record.format
        }
        return result
    }
}
