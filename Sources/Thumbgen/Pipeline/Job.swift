import Foundation
import Synchronization

/// One manifest row in flight: its request, its operations, and its result, set exactly once.
final class Job: Sendable {
    /// What the row asks for.
    let request: ThumbnailRequest
    private let state = Mutex(State())
    private let onFinish: @Sendable (Job, RowResult) -> Void

    private struct State {
        var result: RowResult?
        var operations: [Operation] = []
        var times = RowResult.StageTimes()
        var sourceTask: SourceTask?
    }

    /// A job for `request`; `onFinish` receives its result once, whatever happens.
    init(request: ThumbnailRequest, onFinish: @escaping @Sendable (Job, RowResult) -> Void) {
        self.request = request
        self.onFinish = onFinish
    }

    /// Remembers the shared source task and the operations that belong to this job only, so
    /// that finishing leaves the task and `cancel()` reaches the operations.
    func own(_ operations: [Operation], sharing task: SourceTask) {
        state.withLock {
            $0.operations = operations
            $0.sourceTask = task
        }
    }

    /// Records how long a stage took.
    func record(_ stage: WritableKeyPath<RowResult.StageTimes, Double?>, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000
            + Double(elapsed.components.attoseconds) / 1e15
        state.withLock { $0.times[keyPath: stage] = (ms * 10).rounded() / 10 }
    }

    /// Whether the job already has its result.
    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Ends the job with `result` (the first call wins) and reports it.
    func finish(_ result: RowResult) {
        let (first, task, operations): (RowResult?, SourceTask?, [Operation]) = state.withLock { state in
            guard state.result == nil else { return (nil, nil, []) }
            var result = result
            if state.times != RowResult.StageTimes() { result.ms = state.times }
            state.result = result
            // The operations hold the job; letting go of them here breaks that cycle, so that a
            // finished row's images and bytes are freed at once.
            let operations = state.operations
            state.operations = []
            defer { state.sourceTask = nil }
            return (result, state.sourceTask, operations)
        }
        guard let first else { return }
        withExtendedLifetime(operations) {}  // freed here, outside the lock
        task?.detach()
        onFinish(self, first)
    }

    /// Ends the job with a failure.
    func fail(_ failure: ThumbnailFailure) {
        var result = RowResult.failed(row: request.row, id: request.id, src: request.sourceText,
                                      failure)
        if failure.code == .cancelled { result.status = .cancelled }
        finish(result)
    }

    /// Ends the job as cancelled and cancels its own operations (an encode in progress stops at
    /// once); a shared decode is cancelled by its `SourceTask` once no job needs it.
    func cancel() {
        let operations = state.withLock { $0.operations }
        fail(ThumbnailFailure(.cancelled, "\(request.sourceText): cancelled"))
        operations.forEach { $0.cancel() }
    }
}
