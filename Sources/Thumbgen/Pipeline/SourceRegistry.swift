import Foundation
import Synchronization

/// Finds the open `SourceTask` for a source, so that rows naming the same source share one
/// decode (Nuke's coalescing: work that differs only in later stages shares earlier ones).
final class SourceRegistry: Sendable {
    private let tasks = Mutex<[SourceLocation: SourceTask]>([:])
    private let cancellation: Cancellation?

    /// A registry whose tasks' decodes stop when `cancellation` is pressed.
    init(cancellation: Cancellation?) {
        self.cancellation = cancellation
    }

    /// Attaches `job` to the open task for its source, or to a new one; returns the task and
    /// whether it is new (a new task's decode must be enqueued by the caller).
    func task(for job: Job, decoder: SourceDecoder, cached: CachedOutputs?,
              download: (URL, Int) -> DownloadOperation) -> (task: SourceTask, isNew: Bool) {
        tasks.withLock { tasks in
            let source = job.request.source
            if let existing = tasks[source], existing.attach(job) {
                return (existing, false)
            }
            var fetch: DownloadOperation?
            if case .remote(let url) = source {
                fetch = download(url, job.request.maxAge)
                fetch?.order = job.request.row
            }
            let task = SourceTask(source: source, decoder: decoder, download: fetch, cached: cached,
                                  cancellation: cancellation)
            _ = task.attach(job)
            tasks[source] = task
            return (task, true)
        }
    }

    /// Forgets `task` once its decode has started (it accepts no more jobs).
    func remove(_ task: SourceTask) {
        tasks.withLock { tasks in
            if tasks[task.source] === task { tasks[task.source] = nil }
        }
    }
}
