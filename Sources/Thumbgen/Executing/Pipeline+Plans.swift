import Foundation

/// Carrying plans out: what the pipeline does with a row's plan when it is not a job's next
/// stage. A failure or a cached output ends the row here; anything else becomes (or stays) a
/// job on a source task.
extension Pipeline {
    /// Carries out a row's first plan: a failure or a cached output at once (its answer may
    /// come later, from another thread, once the output's path is settled), anything else as
    /// a job.
    /// `batch`, when given, collects the rows served from the cache before the work item
    /// planning them ends, to settle them together.
    func carryOut(_ plan: RowPlan, for request: ThumbnailRequest, settling batch: Settlements? = nil) {
        switch plan.action {
        case .fail, .askRemote:  // a plan still asking was settled by RemoteAsking: never here
            var result = RowResult.failed(row: request.row, id: request.id, src: request.sourceText,
                                          plan.failure ?? .noPlan(request.sourceText))
            if plan.failsFromCache {
                mode.annotate(&result, origin: plan.origin, digest: plan.sourceDigest, fromCache: true, verdict: true)
            } else {
                mode.annotate(&result, origin: nil, digest: nil, fromCache: false)
            }
            // Settled at once: the row never claimed a path, and rows behind it in the batch
            // may wait on its pattern.
            deliver(result)
        case .keep, .copy:
            guard let record = plan.output else { return enqueue(request, plan: plan) }
            // The completion captures what it reads, not the request and the plan: copying
            // those into every row's closure was a tenth of a warm run's reference counting.
            let (origin, digest) = (plan.origin, plan.sourceDigest)
            let (row, id, src) = (request.row, request.id, request.sourceText)
            delivery.deliver(record, for: request, at: plan.path, bytes: plan.bytes, rendered: false,
                             key: plan.key, isWanted: { [self] in !isCancelled }) {
                [self] outcome in
                var result: RowResult
                switch outcome {
                case .success(let done):
                    result = done
                case .failure(let failure):
                    result = .failed(row: row, id: id, src: src, failure)
                }
                mode.annotate(&result, origin: origin, digest: digest, fromCache: true)
                deliver(result, settling: batch)
            }
        case .render, .read, .fetch, .revalidate:
            enqueue(request, plan: plan)
        }
    }

    /// Carries out the plan a job was given once its source's digest was known (or after its
    /// stored body turned out damaged), when it does not render from the bytes in hand: a
    /// failure, the cache serving it, or a start again on a new source task.
    func carryOut(_ plan: RowPlan, for job: Job) {
        switch plan.action {
        case .fail, .askRemote:  // a plan still asking was settled by RemoteAsking: never here
            let failure = plan.failure ?? .noPlan(job.request.sourceText)
            if plan.failsFromCache {
                job.moveOn(fromCache: true)
                job.advance(.verdict(failure))
            } else {
                job.advance(.failed(failure))
            }
        case .keep, .copy:
            guard let record = plan.output else {
                return job.advance(.failed(.cachedOutputMissing(job.request.sourceText)))
            }
            job.moveOn(fromCache: true)
            delivery.deliver(record, for: job.request, at: plan.path, bytes: plan.bytes, rendered: false,
                             key: plan.key, isWanted: { !job.isFinished }, placing: job.place) { outcome in
                switch outcome {
                case .success(let result): job.advance(.written(result))
                case .failure(let failure): job.advance(.failed(failure))
                }
            }
        case .render, .read, .fetch, .revalidate:
            job.moveOn(fromCache: false)
            schedule(job)
            // Not on the reader's thread: nothing else would hand these operations over.
            startOperations()
        }
    }
}
