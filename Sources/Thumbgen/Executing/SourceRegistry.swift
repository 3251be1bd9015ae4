import Foundation
import Synchronization

/// Finds the open `SourceTask` for a source, so that rows naming the same source share one
/// decode (Nuke's coalescing: work that differs only in later stages shares earlier ones).
///
/// A URL's rows share a task only when they also agree on `max_age`: the download reads and
/// stores the cache as its rows' freshness policy says, so a `max_age=-1` row (never cached)
/// must not ride on a `max_age=3600` row's download, nor the reverse.
final class SourceRegistry: Sendable {
    /// What makes two rows' sources one task.
    private struct Key: Hashable {
        var source: SourceLocation
        /// The row's `max_age` for a URL; nil for a local file, which has no such policy.
        var maxAge: Int?

        init(_ request: ThumbnailRequest) {
            source = request.source
            if case .url = request.source { maxAge = request.maxAge }
        }
    }

    private let tasks = Mutex<[Key: SourceTask]>([:])

    /// Attaches `job` to the open task for its source, or to a new one made by `make` (given
    /// the job, whose plan says how to get a URL source); returns the task and whether it
    /// is new (a new task's operations must be enqueued by the caller).
    func task(for job: Job, make: (Job) -> SourceTask) -> (task: SourceTask, isNew: Bool) {
        tasks.withLock { tasks in
            let key = Key(job.request)
            if let existing = tasks[key], existing.attach(job) {
                return (existing, false)
            }
            let task = make(job)
            _ = task.attach(job)
            tasks[key] = task
            return (task, true)
        }
    }

    /// Forgets `task` once its identification has started (it accepts no more jobs).
    func remove(_ task: SourceTask) {
        // Open tasks are few (at most the admitted rows), so a scan costs nothing.
        tasks.withLock { tasks in
            if let key = tasks.first(where: { $0.value === task })?.key { tasks[key] = nil }
        }
    }
}
