import Foundation
import Synchronization

/// Planning admitted rows on `planners`, a batch to a work item: on a warm run, where the
/// plan is all the work a row has, one dispatch per row and one claims lock per row cost as
/// much as the plan, and woke a thread each.
extension Pipeline {
    /// Rows planned by one work item, at least (a source's rows stay together) and at most.
    static let planBatch = 8
    static let planBatchLimit = 64

    /// Queues `request` for its plan. A batch is handed over when it has `planBatch` rows and
    /// the next row names another source: rows of one source, whose paths often differ only
    /// in `{w}x{h}`, are then planned in manifest order on one thread, where a later row never
    /// has to wait for an earlier one to claim its path (`OutputClaims`).
    func queueForPlanning(_ request: ThumbnailRequest, pattern: OutputPathPattern?) {
        let ready = unplanned.withLock { waiting in
            guard let last = waiting.requests.last?.source else { return false }
            let count = waiting.requests.count
            return count >= Self.planBatchLimit || (count >= Self.planBatch && last != request.source)
        }
        if ready { handOverPlans() }
        unplanned.withLock { waiting in
            waiting.requests.append(request)
            waiting.patterns.append((request.row, pattern))
        }
    }

    /// Hands the rows waiting for their plans over as one batch, after noting their path
    /// patterns with the claims (both under one lock, so that patterns are noted in manifest
    /// order, before any later row can ask for a path). Batches wait in `planQueue` for a
    /// work item on `planners` to take them; one is started while fewer than
    /// `planningThreads` are at it: the cores less one, since the reader's thread plans too
    /// whenever the gate is full, and a thread more than the cores made the planners preempt
    /// each other holding the claims' and recorder's locks (100,000 warm rows: 0.87 -> 0.78 s,
    /// with `--report` 1.01 -> 0.89 s). `keepingLastSource` keeps back the rows of the last row's source, unless they
    /// are all there is (see `admit`).
    func handOverPlans(keepingLastSource: Bool = false) {
        let batch = unplanned.withLock { waiting -> [ThumbnailRequest] in
            guard let last = waiting.requests.last?.source else { return [] }
            var end = waiting.requests.endIndex
            if keepingLastSource {
                let start = waiting.requests.lastIndex { $0.source != last }.map { $0 + 1 } ?? 0
                if start > 0 { end = start }
            }
            return waiting.take(end) { delivery.claims?.expect($0) }
        }
        guard !batch.isEmpty else { return }
        plansInFlight.enter()
        let start = planQueue.withLock { queue in
            queue.batches.append(batch)
            guard queue.takers < planningThreads else { return false }
            queue.takers += 1
            return true
        }
        guard start else { return }
        planners.async { [self] in
            while planOne(leaving: true) {}
        }
    }

    /// How many work items take batches at once. With a remote cache a plan may wait on the
    /// network, and the reader waits on the gate: one per core, as many as can wait.
    private var planningThreads: Int {
        let cores = max(1, configuration.cpuConcurrency)
        return configuration.cache?.remote == nil ? max(1, cores - 1) : cores
    }

    /// Plans one waiting batch, on this thread; false when none waits. A work item's
    /// `leaving` call that finds none stops being a taker.
    @discardableResult
    func planOne(leaving: Bool = false) -> Bool {
        let batch = planQueue.withLock { queue -> [ThumbnailRequest]? in
            if queue.head < queue.batches.count {
                defer {
                    queue.head += 1
                    if queue.head > 64 {
                        queue.batches.removeFirst(queue.head)
                        queue.head = 0
                    }
                }
                return queue.batches[queue.head]
            }
            if leaving { queue.takers -= 1 }
            return nil
        }
        guard let batch else { return false }
        let settlements = Settlements()
        var memo = LocalSourceMemo()
        // The recipes a planning thread met outlive its batch: a batch is one source's rows,
        // one per recipe, and a memo new for each batch missed on every row.
        memo.recipes = recipeMemos.withLock { $0.popLast() } ?? OutputKey.RecentRecipes()
        for request in batch {
            let plan = RemoteAsking.plan(by: planner) { $0.plan(request, memo: &memo) }
            carryOut(plan, for: request, settling: settlements)
        }
        recipeMemos.withLock { $0.append(memo.recipes) }
        settle(settlements)
        // The batch's misses are jobs now: their operations go to the queues at once, not at
        // the reader's next flush (up to 50 ms later while it waits at a full gate, which left
        // the workers idle half of a ten-sizes run).
        startOperations()
        plansInFlight.leave()
        return true
    }
}

/// Rows admitted and waiting to be handed over for their plans, with their path patterns
/// (kept apart, so that a batch is handed over without copying a request).
struct UnplannedRows {
    var requests: [ThumbnailRequest] = []
    var patterns: [(row: Int, pattern: OutputPathPattern?)] = []

    /// Removes the first `end` rows and returns their requests, after `expect` has seen their
    /// patterns.
    mutating func take(_ end: Int, expect: ([(row: Int, pattern: OutputPathPattern?)]) -> Void) -> [ThumbnailRequest] {
        var requests: [ThumbnailRequest] = [], patterns: [(row: Int, pattern: OutputPathPattern?)] = []
        if end == self.requests.count {
            swap(&requests, &self.requests)
            swap(&patterns, &self.patterns)
        } else {
            requests = Array(self.requests[..<end])
            patterns = Array(self.patterns[..<end])
            self.requests.removeSubrange(..<end)
            self.patterns.removeSubrange(..<end)
        }
        expect(patterns)
        return requests
    }
}

/// Batches of rows waiting to be planned, oldest first, and the work items taking them.
struct PlanQueue {
    var batches: [[ThumbnailRequest]] = []
    var head = 0
    var takers = 0
}

/// The rows of one work item that ended while it ran: their claims and their places in the
/// admission gate are settled, and their results handed on, together when it ends (a few
/// locks per batch, not per row, which the reader's thread and the recorder contend for). A
/// row that ends later (it waited for its path) settles on its own.
final class Settlements: Sendable {
    private let state = Mutex<(open: Bool, results: [RowResult])>((true, []))

    /// Collects `result` if the work item still runs; false when it has ended.
    func add(_ result: RowResult) -> Bool {
        state.withLock { state in
            guard state.open else { return false }
            state.results.append(result)
            return true
        }
    }

    /// Ends the collection; the results collected, in the order they ended.
    func close() -> [RowResult] {
        state.withLock { state in
            state.open = false
            return state.results
        }
    }
}
