import Foundation

/// Planning admitted rows on `cacheChecks`, a batch to a work item: on a warm run, where the
/// plan is all the work a row has, one dispatch per row and one claims lock per row cost as
/// much as the plan, and woke a thread each.
extension Pipeline {
    /// Rows planned by one work item, at least (a source's rows stay together) and at most.
    static let checkBatch = 4
    static let checkBatchLimit = 32

    /// Queues `request` for its plan. A batch is handed over when it has `checkBatch` rows and
    /// the next row names another source: rows of one source, whose paths often differ only
    /// in `{w}x{h}`, are then planned in manifest order on one thread, where a later row never
    /// has to wait for an earlier one to claim its path (`OutputClaims`).
    func check(_ request: ThumbnailRequest, pattern: OutputPathPattern?) {
        let ready = unchecked.withLock { waiting in
            guard let last = waiting.last?.request.source else { return false }
            return waiting.count >= Self.checkBatchLimit || (waiting.count >= Self.checkBatch && last != request.source)
        }
        if ready { handOverChecks() }
        unchecked.withLock { $0.append((request, pattern)) }
    }

    /// Hands the rows waiting for their plans to `cacheChecks` as one work item, after noting
    /// their path patterns with the claims. Both under one lock, so that patterns are noted
    /// in manifest order, before any later row can ask for a path.
    func handOverChecks() {
        let batch = unchecked.withLock { waiting -> [(request: ThumbnailRequest, pattern: OutputPathPattern?)] in
            guard !waiting.isEmpty else { return [] }
            let batch = waiting
            waiting.removeAll(keepingCapacity: true)
            delivery.claims?.expect(batch.map { ($0.request.row, $0.pattern) })
            return batch
        }
        guard !batch.isEmpty else { return }
        checking.enter()
        cacheChecks.async { [self] in
            defer { checking.leave() }
            for (request, _) in batch { carryOut(planner.plan(request), for: request) }
        }
    }
}
