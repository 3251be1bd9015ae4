import Foundation
import Synchronization

/// The shared front of the chain for one source: every job that names the source while the
/// task is open waits on the same download, identification and decode.
///
/// The task is open until its identification starts; jobs that arrive later get a new task.
/// Its operations take the highest priority of its jobs, and are skipped when every one of them
/// has finished (cancelled) before they start.
final class SourceTask: Sendable {
    /// Where the source is.
    let source: SourceLocation
    /// What makes the outputs, in process or in a worker process (the jobs' writes depend on it).
    let imaging: SourceImagingOperation
    /// The operation that learns the source's digest and serves the jobs the cache can; the
    /// decode depends on it.
    let identify: IdentifyOperation
    /// The operation that fetches a URL source first; the identification depends on it.
    let download: DownloadOperation?
    private let state = Mutex(State())

    /// Where the source's pixels are made: in process (making the source's placeholder or
    /// not), or by a worker of the pool (whose `setup` says).
    enum Isolation {
        case none(SourceDecoder, any SourceRendering, makesPlaceholders: Bool)
        case workers(WorkerPool, MemoryBudget, ImagingLimits)
    }

    private struct State {
        var jobs: [Job] = []
        var open = true
    }

    /// A task for `source`, fetched by `download` first when it is remote, planned again by
    /// `planner` once its digest is known (by `hashing`, for a local file; a job that will not
    /// render from it goes to `handBack`), and decoded as `isolation` says.
    init(source: SourceLocation, download: DownloadOperation?, planner: RowPlanner,
         hashing: (any SourceHashing)?, isolation: Isolation, cancellation: Cancellation?,
         handBack: @escaping @Sendable (Job, RowPlan) -> Void) {
        self.source = source
        self.download = download
        identify = IdentifyOperation(source: source, download: download, planner: planner,
                                     hashing: hashing, cancellation: cancellation, handBack: handBack)
        switch isolation {
        case .none(let decoder, let renderer, let makesPlaceholders):
            imaging = SourceRenderOperation(decoder: decoder, renderer: renderer, makesPlaceholders: makesPlaceholders,
                                            after: identify, cancellation: cancellation)
        case .workers(let pool, let budget, let limits):
            imaging = WorkerUnitOperation(after: identify, workers: pool, budget: budget,
                                          limits: limits, cancellation: cancellation)
        }
        identify.task = self
        download?.isWanted = { [weak self] in self?.isWanted ?? false }
    }

    /// Whether a job still waits on the source (false once every attached job has finished).
    var isWanted: Bool {
        state.withLock { state in state.jobs.contains { !$0.isFinished } }
    }

    /// Adds `job` if the decode has not started; false if the task is closed.
    func attach(_ job: Job) -> Bool {
        state.withLock { state in
            guard state.open else { return false }
            state.jobs.append(job)
            let highest = state.jobs.map(\.request.priority).max() ?? .normal
            imaging.queuePriority = highest.queuePriority
            identify.queuePriority = highest.queuePriority
            download?.queuePriority = highest.queuePriority
            return true
        }
    }

    /// Closes the task to new jobs and returns the jobs attached.
    func close() -> [Job] {
        state.withLock { state in
            state.open = false
            return state.jobs
        }
    }
}
