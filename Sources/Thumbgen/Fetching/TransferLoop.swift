import Foundation
import Synchronization

/// One thread driving every transfer through one `CurlMulti`: many transfers on one thread,
/// connections reused between them, HTTP/2 multiplexed where the server offers it. This type
/// decides what runs when; `CurlMulti` holds the libcurl calls.
///
/// Other threads hand transfers in and take them out through `add` and `cancel`, which queue
/// the change and wake the loop; only the loop's thread touches the multi handle. At most
/// `maxInFlight` transfers run; the rest wait here, highest priority first, and the loop starts
/// the next one the moment one ends (a hop through a thread pool per transfer cost ~20 ms each
/// while the cores were busy rendering). A finished transfer's completion runs off the loop's
/// thread.
final class TransferLoop: @unchecked Sendable {
    /// Gets how a transfer ended, on the completions queue.
    typealias Completion = @Sendable (CurlResult) -> Void

    private let multi: CurlMulti
    private let inbox = Mutex<(adds: [Waiting], removals: [CurlTransfer], stop: Bool)>(([], [], false))
    // Loop thread only:
    private var running: [ObjectIdentifier: (transfer: CurlTransfer, completion: Completion)] = [:]
    private var waiting: [Waiting] = []
    private var arrivals = 0
    private let maxInFlight: Int

    /// A transfer in the waiting line, with what orders it there.
    private struct Waiting {
        var transfer: CurlTransfer
        var completion: Completion
        var priority: Int
        var order: Int
        var arrival = 0
    }
    private let completions = DispatchQueue(label: "thumbgen.fetch.completions")

    /// Starts the loop's thread, with the policy's connection limits; throws, starting nothing,
    /// when libcurl refuses them.
    init(policy: FetchPolicy) throws(FetchError) {
        multi = try CurlMulti(policy: policy)
        maxInFlight = max(1, policy.concurrentTransfers)
        // The thread holds the loop until `run()` returns (after `stop()`): an unowned
        // reference crashed when a quick run freed the loop before its thread had begun.
        let thread = Thread { [self] in self.run() }
        thread.name = "thumbgen.fetch"
        thread.start()
    }

    /// Starts `transfer` when a place is free (higher `priority` first, then lower `order`, then
    /// first come); `completion` gets how it ended.
    func add(_ transfer: CurlTransfer, priority: Int = 0, order: Int = 0,
             completion: @escaping Completion) {
        inbox.withLock {
            $0.adds.append(Waiting(transfer: transfer, completion: completion, priority: priority,
                                   order: order))
        }
        multi.wakeup()
    }

    /// Stops `transfer` at once; its completion gets `.aborted`.
    func cancel(_ transfer: CurlTransfer) {
        inbox.withLock { $0.removals.append(transfer) }
        multi.wakeup()
    }

    /// Ends the loop once the transfers in flight are abandoned.
    func stop() {
        inbox.withLock { $0.stop = true }
        multi.wakeup()
    }

    private func run() {
        while true {
            let (adds, removals, stop) = inbox.withLock { box in
                defer { box.adds = []; box.removals = [] }
                return (box.adds, box.removals, box.stop)
            }
            for var entry in adds {
                arrivals += 1
                entry.arrival = arrivals
                waiting.append(entry)
            }
            for transfer in removals { abort(transfer) }
            if stop {
                for entry in waiting { abort(entry.transfer) }
                for entry in Array(running.values) { abort(entry.transfer) }
                return
            }
            startWaiting()
            for (transfer, result) in multi.perform() { finish(transfer, result) }
            if !waiting.isEmpty && running.count < maxInFlight {
                startWaiting()
                continue  // perform at once: the new transfers need no wait to begin
            }
            multi.wait(milliseconds: 1000)
        }
    }

    /// Moves waiting transfers into the multi handle while places are free.
    private func startWaiting() {
        guard !waiting.isEmpty, running.count < maxInFlight else { return }
        waiting.sort { ($0.priority, -$0.order, -$0.arrival) > ($1.priority, -$1.order, -$1.arrival) }
        while running.count < maxInFlight, !waiting.isEmpty {
            let next = waiting.removeFirst()
            running[ObjectIdentifier(next.transfer)] = (next.transfer, next.completion)
            multi.start(next.transfer)
        }
    }

    /// Ends a transfer that was cancelled, waiting or running; one that already ended is left
    /// alone.
    private func abort(_ transfer: CurlTransfer) {
        if let index = waiting.firstIndex(where: { $0.transfer === transfer }) {
            let entry = waiting.remove(at: index)
            complete(entry.transfer, multi.abort(entry.transfer), entry.completion)
        } else if let entry = running.removeValue(forKey: ObjectIdentifier(transfer)) {
            complete(transfer, multi.abort(transfer), entry.completion)
        }
    }

    /// Hands a transfer that libcurl ended to its completion.
    private func finish(_ transfer: CurlTransfer, _ result: CurlResult) {
        guard let entry = running.removeValue(forKey: ObjectIdentifier(transfer)) else { return }
        complete(transfer, result, entry.completion)
    }

    /// Runs `completion` off the loop's thread, keeping the transfer alive until it has.
    private func complete(_ transfer: CurlTransfer, _ result: CurlResult, _ completion: @escaping Completion) {
        completions.async {
            withExtendedLifetime(transfer) { completion(result) }
        }
    }
}
