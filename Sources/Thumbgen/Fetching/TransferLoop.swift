import CCurl
import Foundation
import Synchronization

/// One thread driving every transfer through one libcurl multi handle: many transfers on one
/// thread, connections reused between them, HTTP/2 multiplexed where the server offers it.
///
/// Other threads hand transfers in and take them out through `add` and `cancel`, which queue
/// the change and wake the loop (`curl_multi_wakeup`); only the loop's thread touches the multi
/// handle. At most `maxInFlight` transfers run; the rest wait here, highest priority first, and
/// the loop starts the next one the moment one ends (a hop through a thread pool per transfer
/// cost ~20 ms each while the cores were busy rendering). A finished transfer's completion runs
/// off the loop's thread.
final class TransferLoop: @unchecked Sendable {
    typealias Completion = @Sendable (CURLcode) -> Void

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex<(adds: [Waiting], removals: [CurlTransfer], stop: Bool)>(([], [], false))
    // Loop thread only:
    private var running: [UnsafeMutableRawPointer: (CurlTransfer, Completion)] = [:]
    private var waiting: [Waiting] = []
    private var arrivals = 0
    private let maxInFlight: Int

    private struct Waiting {
        var transfer: CurlTransfer
        var completion: Completion
        var priority: Int
        var order: Int
        var arrival = 0
    }
    private let completions = DispatchQueue(label: "thumbgen.fetch.completions")

    /// Starts the loop's thread, with the policy's connection limits.
    init(policy: FetchPolicy) {
        CurlRuntime.start()
        multi = curl_multi_init()
        maxInFlight = max(1, policy.concurrentTransfers)
        _ = tg_curl_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, policy.connectionsPerHost)
        _ = tg_curl_multi_set_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, policy.concurrentTransfers)
        // The thread holds the loop until `run()` returns (after `stop()`): an unowned
        // reference crashed when a quick run freed the loop before its thread had begun.
        let thread = Thread { [self] in self.run() }
        thread.name = "thumbgen.fetch"
        thread.start()
    }

    /// Starts `transfer` when a place is free (higher `priority` first, then lower `order`, then
    /// first come); `completion` gets libcurl's result code when it ends.
    func add(_ transfer: CurlTransfer, priority: Int = 0, order: Int = 0,
             completion: @escaping Completion) {
        inbox.withLock {
            $0.adds.append(Waiting(transfer: transfer, completion: completion, priority: priority,
                                   order: order))
        }
        curl_multi_wakeup(multi)
    }

    /// Stops `transfer` at once; its completion gets `CURLE_ABORTED_BY_CALLBACK`.
    func cancel(_ transfer: CurlTransfer) {
        inbox.withLock { $0.removals.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Ends the loop once the transfers in flight are abandoned.
    func stop() {
        inbox.withLock { $0.stop = true }
        curl_multi_wakeup(multi)
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
                waiting.forEach(abort)
                for handle in Array(running.keys) { finish(handle, CURLE_ABORTED_BY_CALLBACK) }
                curl_multi_cleanup(multi)
                return
            }
            startWaiting()
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                if message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle {
                    finish(handle, message.pointee.data.result)
                }
            }
            if !waiting.isEmpty && running.count < maxInFlight {
                startWaiting()
                continue  // perform at once: the new transfers need no poll to begin
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    /// Moves waiting transfers into the multi handle while places are free.
    private func startWaiting() {
        guard !waiting.isEmpty, running.count < maxInFlight else { return }
        waiting.sort { ($0.priority, -$0.order, -$0.arrival) > ($1.priority, -$1.order, -$1.arrival) }
        while running.count < maxInFlight, !waiting.isEmpty {
            let next = waiting.removeFirst()
            next.transfer.markStarted()
            running[next.transfer.handle] = (next.transfer, next.completion)
            curl_multi_add_handle(multi, next.transfer.handle)
        }
    }

    /// Ends a transfer that was cancelled, waiting or running.
    private func abort(_ transfer: CurlTransfer) {
        if let index = waiting.firstIndex(where: { $0.transfer === transfer }) {
            let entry = waiting.remove(at: index)
            completions.async { withExtendedLifetime(entry.transfer) { entry.completion(CURLE_ABORTED_BY_CALLBACK) } }
        } else {
            finish(transfer.handle, CURLE_ABORTED_BY_CALLBACK)
        }
    }

    private func abort(_ entry: Waiting) { abort(entry.transfer) }

    private func finish(_ handle: UnsafeMutableRawPointer, _ code: CURLcode) {
        guard let (transfer, completion) = running.removeValue(forKey: handle) else { return }
        curl_multi_remove_handle(multi, handle)
        completions.async {
            withExtendedLifetime(transfer) { completion(code) }
        }
    }
}

/// Starts libcurl once per process.
enum CurlRuntime {
    private static let started: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Runs `curl_global_init` the first time; later calls do nothing.
    static func start() { _ = started }
}
