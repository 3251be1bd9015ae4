import Foundation
import Synchronization

/// Making rows' jobs and their operations, and handing the operations to their queues in
/// batches (so that rows naming the same source a few lines apart share one decode).
extension Pipeline {
    /// Makes an admitted row's job, carrying out `plan`, and schedules it.
    func enqueue(_ request: ThumbnailRequest, plan: RowPlan) {
        if case .url = request.source { widenForDownloads() }
        workers?.prestart()
        let job = Job(request: request, plan: plan, mode: mode, onEvent: configuration.onEvent) {
            [weak self] job, result in
            guard let self else { return }
            self.state.withLock { _ = $0.active.removeValue(forKey: ObjectIdentifier(job)) }
            self.deliver(result)
        }
        schedule(job)
    }

    /// Makes a job's operations for its current generation, sharing its source's task when
    /// one is open, and batches them for the queues.
    func schedule(_ job: Job) {
        let request = job.request
        let (task, isNew) = registry.task(for: job, make: makeTask)
        let operations: [(Operation, OperationQueue)] = [
            (WriteOperation(job: job, after: task.imaging, delivery: delivery, cache: configuration.cache), writeQueue),
        ]
        operations.forEach { $0.0.queuePriority = request.priority.queuePriority }
        job.own(operations.map(\.0))
        if isNew {
            task.identify.onStart = { [registry] in registry.remove($0) }
        }
        let (cancelled, batchFull) = state.withLock { state in
            guard !state.cancelled else { return (true, false) }
            state.active[ObjectIdentifier(job)] = job
            if isNew {
                if let download = task.download { state.batch.append((download, downloadQueue)) }
                state.batch.append((task.identify, identifyQueue))
                // On the render queue, apart from the identifications, so that the next
                // sources are hashed meanwhile.
                state.batch.append((task.imaging, renderQueue))
                state.decodes += 1
            }
            state.batch += operations
            return (false, state.batch.count >= Self.batchSize * 2)
        }
        if cancelled { return job.advance(.failed(.cancelled(request.sourceText))) }
        if batchFull { startOperations() }
    }

    /// A new task for `job`'s source; a URL source is got as the job's plan says.
    private func makeTask(for job: Job) -> SourceTask {
        var download: DownloadOperation?
        let request = job.request
        if case .url(let url) = request.source {
            download = downloads.operation(url, identity: request.urlIdentity ?? url.absoluteString,
                                          maxAge: request.maxAge, step: job.plan.step ?? .fetch)
            download?.order = request.row
            download?.login = request.login
        }
        return SourceTask(source: request.source, download: download, planner: planner,
                          hashing: configuration.sourceHashing ?? planner.cache?.files, isolation: isolation,
                          cancellation: cancellation) { [weak self] job, plan in
            self?.carryOut(plan, for: job)
        }
    }

    /// The first URL row widens the admission window by `downloadLookahead` rows, so that
    /// downloads run ahead of the CPU work instead of starting only as earlier rows finish: a
    /// large file far down the manifest would otherwise start late and leave the cores idle at
    /// the end. An admitted row waiting for a core holds a file on disk, not pixels in memory.
    private func widenForDownloads() {
        let first = state.withLock { state in
            defer { state.widened = true }
            return !state.widened
        }
        guard first else { return }
        gate.widen(by: configuration.downloadLookahead)
    }

    /// Hands every queued operation to its queue (and the rows waiting for their plans to
    /// `planners`).
    public func flush() {
        handOverPlans()
        startOperations()
    }

    /// Hands every queued operation to its queue. What the planning threads call: the rows
    /// waiting for their plans are the reader's to hand over (a planner taking them would
    /// split a source's rows between batches, mid-source).
    func startOperations() {
        let batch = state.withLock { state in
            defer { state.batch = [] }
            return state.batch
        }
        for (operation, queue) in batch { queue.addOperation(operation) }
    }
}
