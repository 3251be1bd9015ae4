import Foundation
import Synchronization

/// One manifest row in flight: its request, its operations, and its result, set exactly once.
/// Its life is a state machine (`RowStage`): stages report what happened as `RowEvent`s, and
/// `advance` applies them, the one place where a row moves on or ends.
final class Job: Sendable {
    /// What the row asks for.
    let request: ThumbnailRequest
    /// The kind of run, which decides what the result reports of the cache.
    let mode: RunMode
    private let state: Mutex<State>
    private let onFinish: @Sendable (Job, RowResult) -> Void
    private let onEvent: (@Sendable (PipelineEvent) -> Void)?

    private struct State {
        var plan: RowPlan
        var result: RowResult?
        var operations: [Operation] = []
        var times = RowResult.StageTimes()
        var http: RowResult.HTTPInfo?
        var sourceDigest: String?
        var origin: SourceOrigin?
        var outputFromCache = false
        var generation = 0
        var restarts = 0
        /// The generation whose operations were made last: its write lets go of them all.
        var lastOwner = 0
        var source: RowResult.SourceInfo?
        /// Whether the row's file was put in place (`place`): then only its write ends the job.
        var placed = false
        /// How far the row has gone; `recorded` once its result is handed on.
        var stage = RowStage.planned
    }

    /// A job for `request`, carrying out `plan`; `onFinish` receives its result once, whatever
    /// happens.
    init(request: ThumbnailRequest, plan: RowPlan, mode: RunMode = .none,
         onEvent: (@Sendable (PipelineEvent) -> Void)? = nil,
         onFinish: @escaping @Sendable (Job, RowResult) -> Void) {
        self.request = request
        state = Mutex(State(plan: plan))
        self.mode = mode
        self.onEvent = onEvent
        self.onFinish = onFinish
    }

    /// The row's plan: the planner's first, or the one it made once the source's digest was
    /// known.
    var plan: RowPlan { state.withLock { $0.plan } }

    /// Takes the plan the planner made once the source's digest was known.
    func replan(_ plan: RowPlan) {
        state.withLock { $0.plan = plan }
    }

    /// Counts a start again on a new source task (its stored body was damaged); false when the
    /// job started again before, so that a body that cannot be dropped does not loop.
    func startsAgain() -> Bool {
        state.withLock { state in
            state.restarts += 1
            // Twice: a second task may have planned from the record before it was dropped.
            return state.restarts <= 2
        }
    }

    /// Which operations may work on the job: those made for its current generation. Operations
    /// made earlier return without work once the job has moved on (`moveOn(fromCache:)`).
    var generation: Int { state.withLock { $0.generation } }

    /// Takes the job from the operations made for it so far: the cache serves it (`fromCache`:
    /// perhaps later, once its output path is settled), or it starts again on a new source task.
    /// Its earlier render and write must not run.
    func moveOn(fromCache: Bool) {
        state.withLock { state in
            state.generation += 1
            if fromCache { state.outputFromCache = true }
        }
    }

    /// Holds the operations that belong to this job only (a job that starts again holds those
    /// of every generation) until the last of them has run (`releaseOperations`).
    func own(_ operations: [Operation]) {
        state.withLock { state in
            state.operations += operations
            state.lastOwner = state.generation
        }
    }

    /// Records how long a stage took.
    func record(_ stage: WritableKeyPath<RowResult.StageTimes, Double?>, since start: ContinuousClock.Instant) {
        let ms = (ContinuousClock.now - start).inMilliseconds
        state.withLock { $0.times[keyPath: stage] = (ms * 10).rounded() / 10 }
    }

    /// Records how long a stage took, as measured elsewhere (in a worker).
    func record(_ stage: WritableKeyPath<RowResult.StageTimes, Double?>, milliseconds: Double?) {
        guard let milliseconds else { return }
        state.withLock { $0.times[keyPath: stage] = milliseconds }
    }

    /// The stage times recorded so far.
    var stageTimes: RowResult.StageTimes { state.withLock { $0.times } }

    /// Whether the job already has its result.
    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Puts the row's file in place with `rename` (`AtomicFileWriter.Placement`) unless the
    /// job has ended; once the file is there, a cancel or a stage's deadline can no longer end
    /// the job: the write's result, which follows, is the row's (else a cancel landing during
    /// the rename left a file its report called cancelled).
    func place(_ rename: () -> Bool) -> Bool? {
        state.withLock { state in
            guard state.result == nil else { return nil }
            let renamed = rename()
            if renamed { state.placed = true }
            return renamed
        }
    }

    /// Lets go of the job's operations once the last of them has run, when `generation` (the
    /// caller's) made them last. The operations hold the job, so this breaks the cycle and frees
    /// a finished row's images and bytes. It must not happen earlier: an operation waiting on a
    /// dependency is listed there by a pointer that does not keep it alive
    /// (swift-corelibs-foundation).
    func releaseOperations(madeFor generation: Int) {
        let operations = state.withLock { state -> [Operation] in
            guard generation == state.lastOwner else { return [] }
            defer { state.operations = [] }
            return state.operations
        }
        withExtendedLifetime(operations) {}  // freed here, outside the lock
    }

    /// Applies `event` to the row: notes what it says and moves the row on, or ends it.
    func advance(_ event: RowEvent) {
        switch event {
        case .fetched(let http):
            update(to: .fetched) { if let http { $0.http = http } }
        case .identified(let origin, let digest):
            update(to: .identified) {
                $0.origin = origin
                $0.sourceDigest = digest
            }
        case .loaded(let source, let decode):
            update(to: nil) { $0.source = source }
            onEvent?(.loaded(request, source, decode: decode))
        case .rendered:
            update(to: .rendered) { _ in }
        case .written(let result):
            end(with: result)
        case .failed(let failure):
            end(with: .failed(row: request.row, id: request.id, src: request.sourceText, failure))
        case .verdict(let failure):
            end(with: .failed(row: request.row, id: request.id, src: request.sourceText, failure), verdict: true)
        }
    }

    /// How far the row has gone (`RowStage`).
    var stage: RowStage { state.withLock { $0.stage } }

    /// Notes what an event says, under the lock, and moves the row on to `stage` unless it is
    /// there or past it already (or has ended).
    private func update(to stage: RowStage?, _ note: (inout State) -> Void) {
        state.withLock { state in
            guard state.result == nil else { return }
            note(&state)
            if let stage, stage > state.stage { state.stage = stage }
        }
    }

    /// Ends the job with `result` (the first end wins, but after `place` only a success) and
    /// hands it on: the row is then written (or failed) and, once handed on, recorded.
    /// `verdict`: a failure the cache served (`RowEvent.verdict`).
    private func end(with result: RowResult, verdict: Bool = false) {
        let first: RowResult? = state.withLock { state in
            guard state.result == nil else { return nil }
            guard !state.placed || result.status == .written || result.status == .unchanged else { return nil }
            var result = result
            if state.times != RowResult.StageTimes() { result.ms = state.times }
            result.http = result.http ?? state.http
            result.source = result.source ?? state.source
            mode.annotate(&result, origin: state.origin, digest: state.sourceDigest,
                          fromCache: state.outputFromCache, verdict: verdict)
            state.result = result
            if result.status == .written || result.status == .unchanged { state.stage = .written }
            return result
        }
        guard let first else { return }
        onFinish(self, first)
        state.withLock { $0.stage = .recorded }
    }
}
