import CCurl
import Foundation
import Synchronization

/// One thread driving every transfer through one libcurl multi handle: many transfers on one
/// thread, connections reused between them, HTTP/2 multiplexed where the server offers it.
///
/// Other threads hand transfers in and take them out through `add` and `cancel`, which queue
/// the change and wake the loop (`curl_multi_wakeup`); only the loop's thread touches the multi
/// handle. A finished transfer's completion runs off the loop's thread.
final class TransferLoop: @unchecked Sendable {
    typealias Completion = @Sendable (CURLcode) -> Void

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex<(adds: [(CurlTransfer, Completion)], removals: [CurlTransfer], stop: Bool)>(([], [], false))
    private var running: [UnsafeMutableRawPointer: (CurlTransfer, Completion)] = [:]  // loop thread only
    private let completions = DispatchQueue(label: "thumbgen.fetch.completions")
    private var thread: Thread?

    /// Starts the loop's thread, with the policy's connection limits.
    init(policy: FetchPolicy) {
        CurlRuntime.start()
        multi = curl_multi_init()
        _ = tg_curl_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, policy.connectionsPerHost)
        _ = tg_curl_multi_set_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, policy.concurrentTransfers)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "thumbgen.fetch"
        self.thread = thread
        thread.start()
    }

    /// Starts `transfer`; `completion` gets libcurl's result code when it ends.
    func add(_ transfer: CurlTransfer, completion: @escaping Completion) {
        inbox.withLock { $0.adds.append((transfer, completion)) }
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
            for (transfer, completion) in adds {
                running[transfer.handle] = (transfer, completion)
                curl_multi_add_handle(multi, transfer.handle)
            }
            for transfer in removals { finish(transfer.handle, CURLE_ABORTED_BY_CALLBACK) }
            if stop {
                for handle in Array(running.keys) { finish(handle, CURLE_ABORTED_BY_CALLBACK) }
                curl_multi_cleanup(multi)
                return
            }
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                if message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle {
                    finish(handle, message.pointee.data.result)
                }
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

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
