import Foundation
import Synchronization

/// The shared front of the chain for one source: every job that names the source while the
/// task is open waits on the same decode.
///
/// The task is open until its decode starts; jobs that arrive later get a new task. The decode
/// takes the highest priority of its jobs, and is skipped when every one of them has finished
/// (cancelled) before it starts.
final class SourceTask: Sendable {
    /// Where the source is.
    let source: SourceLocation
    /// The operation that opens the source; the jobs' renders depend on it.
    let decode: DecodeOperation
    /// The operation that fetches a remote source first; the decode depends on it.
    let download: DownloadOperation?
    private let state = Mutex(State())

    private struct State {
        var jobs: [Job] = []
        var open = true
    }

    /// A task for `source`, decoding with `decoder` (after `download`, for a remote source),
    /// serving what it can from `cached`.
    init(source: SourceLocation, decoder: SourceDecoder, download: DownloadOperation?,
         cached: CachedOutputs?, cancellation: Cancellation?) {
        self.source = source
        self.download = download
        self.decode = DecodeOperation(source: source, decoder: decoder, download: download,
                                      cached: cached, cancellation: cancellation)
        decode.task = self
        if let download {
            decode.addDependency(download)
            download.isWanted = { [weak self] in self?.isWanted ?? false }
        }
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
            decode.queuePriority = highest.queuePriority
            download?.queuePriority = highest.queuePriority
            return true
        }
    }

    /// Closes the task to new jobs and returns the jobs the decode serves.
    func close() -> [Job] {
        state.withLock { state in
            state.open = false
            return state.jobs
        }
    }
}
