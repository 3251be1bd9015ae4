import Foundation
import Synchronization

/// One manifest row in flight: its request, its operations, and its result, set exactly once.
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
        var handedToCache = false
        var source: RowResult.SourceInfo?
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

    /// Records what the source is, once its header is read, and reports the load.
    func loaded(_ source: RowResult.SourceInfo) {
        state.withLock { $0.source = source }
        onEvent?(.loaded(request, source))
    }

    /// Records where the source's bytes came from, and their digest when known.
    func record(origin: SourceOrigin, digest: String?) {
        state.withLock {
            $0.origin = origin
            $0.sourceDigest = digest
        }
    }

    /// Notes that the cache serves this job (perhaps later, once its output path is settled):
    /// its render and write must not run.
    func handOverToCache() {
        state.withLock { $0.handedToCache = true }
    }

    /// Whether the cache serves this job (`handOverToCache`).
    var isHandedToCache: Bool { state.withLock { $0.handedToCache } }

    /// Records that the output was served from the cache rather than rendered.
    func recordOutputFromCache() {
        state.withLock { $0.outputFromCache = true }
    }

    /// Remembers the operations that belong to this job only, so that `cancel()` reaches them.
    func own(_ operations: [Operation]) {
        state.withLock { $0.operations = operations }
    }

    /// Records how long a stage took.
    func record(_ stage: WritableKeyPath<RowResult.StageTimes, Double?>, since start: ContinuousClock.Instant) {
        let ms = (ContinuousClock.now - start).inMilliseconds
        state.withLock { $0.times[keyPath: stage] = (ms * 10).rounded() / 10 }
    }

    /// Records how its source's download went.
    func record(http: RowResult.HTTPInfo) {
        state.withLock { $0.http = http }
    }

    /// Whether the job already has its result.
    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Ends the job with `result` (the first call wins) and reports it.
    func finish(_ result: RowResult) {
        let first: RowResult? = state.withLock { state in
            guard state.result == nil else { return nil }
            var result = result
            if state.times != RowResult.StageTimes() { result.ms = state.times }
            result.http = result.http ?? state.http
            result.source = result.source ?? state.source
            mode.annotate(&result, origin: state.origin, digest: state.sourceDigest,
                               fromCache: state.outputFromCache)
            state.result = result
            return result
        }
        if let first { onFinish(self, first) }
    }

    /// Lets go of the job's operations once the last of them has run. The operations hold the
    /// job, so this breaks the cycle and frees a finished row's images and bytes. It must not
    /// happen earlier: an operation waiting on a dependency is listed there by a pointer that
    /// does not keep it alive (swift-corelibs-foundation).
    func releaseOperations() {
        let operations = state.withLock { state in
            defer { state.operations = [] }
            return state.operations
        }
        withExtendedLifetime(operations) {}  // freed here, outside the lock
    }

    /// Ends the job with a failure.
    func fail(_ failure: ThumbnailFailure) {
        var result = RowResult.failed(row: request.row, id: request.id, src: request.sourceText,
                                      failure)
        if failure.code == .cancelled { result.status = .cancelled }
        finish(result)
    }

    /// Ends the job as cancelled. Its operations are not cancelled as `Operation`s: each sees
    /// that the job has finished and returns without work, and a shared decode is skipped once
    /// every job waiting on it has finished. (On Linux, cancelling an operation that waits on a
    /// dependency leaves a dangling pointer in that dependency, which crashes when it
    /// finishes.) Work already running is stopped by the run's `Cancellation`.
    func cancel() {
        fail(ThumbnailFailure(.cancelled, "\(request.sourceText): cancelled"))
    }
}
