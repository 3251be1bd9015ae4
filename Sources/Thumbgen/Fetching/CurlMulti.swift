import CCurl

/// One libcurl multi handle and the transfers attached to it: the C half of `TransferLoop`,
/// which decides what runs when.
///
/// The handle is freed in `deinit` and nowhere else, so a `wakeup()` from another thread can
/// never reach a freed handle. Every method but `wakeup()` is for the loop's thread alone, as
/// libcurl requires of a multi handle. A transfer is kept alive here while it is attached,
/// since libcurl calls into it until it is taken out.
final class CurlMulti: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// The transfers libcurl is running, by their easy handle.
    private var attached: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// Options answered as unknown without asking libcurl (tests only).
    private let refusals: CurlRefusals

    /// A multi handle that keeps to the policy's connection limits. Throws when libcurl cannot
    /// make one, or refuses a limit (naming it): as with a transfer's own options, a limit
    /// thumbgen promises is never dropped silently.
    init(policy: FetchPolicy) throws(FetchError) {
        CurlRuntime.start()
        guard let handle = curl_multi_init() else { throw .other("libcurl could not start its transfer loop") }
        self.handle = handle
        refusals = policy.refusals
        try set(.maxHostConnections, policy.connectionsPerHost)
        try set(.maxTotalConnections, policy.concurrentTransfers)
    }

    deinit {
        curl_multi_cleanup(handle)
    }

    /// Ends a `wait` at once; safe from any thread.
    func wakeup() {
        curl_multi_wakeup(handle)
    }

    /// Hands `transfer` to libcurl and starts its stall clock: it leaves the waiting line for
    /// the network.
    func start(_ transfer: CurlTransfer) {
        transfer.markStarted()
        attached[transfer.handle] = transfer
        curl_multi_add_handle(handle, transfer.handle)
    }

    /// Lets libcurl do what it can without waiting; returns the transfers that ended, taken out
    /// of the handle, each with how it ended.
    func perform() -> [(transfer: CurlTransfer, result: CurlResult)] {
        var active: Int32 = 0
        curl_multi_perform(handle, &active)
        var done: [(easy: UnsafeMutableRawPointer, code: CURLcode)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(handle, &queued) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                done.append((easy, message.pointee.data.result))
            }
        }
        return done.compactMap { easy, code in
            detach(easy).map { ($0, $0.end(code)) }
        }
    }

    /// Ends `transfer` at once as cancelled, taking it out of the handle if it is running (one
    /// still waiting was never in it); returns how it ended. Never for a transfer that already
    /// ended.
    func abort(_ transfer: CurlTransfer) -> CurlResult {
        _ = detach(transfer.handle)
        return transfer.end(CURLE_ABORTED_BY_CALLBACK)
    }

    /// Waits up to `milliseconds` for network activity or a `wakeup()`.
    func wait(milliseconds: Int32) {
        curl_multi_poll(handle, nil, 0, milliseconds, nil)
    }

    /// Takes the transfer on `easy` out of the handle; nil when it is not attached.
    private func detach(_ easy: UnsafeMutableRawPointer) -> CurlTransfer? {
        guard let transfer = attached.removeValue(forKey: easy) else { return nil }
        curl_multi_remove_handle(handle, easy)
        return transfer
    }

    /// Sets one option on the handle; throws, naming it, when libcurl refuses it, or when
    /// `refusals` names it (answered as a libcurl without it would, without asking libcurl).
    /// The one multi setopt wrapper.
    private func set(_ option: CurlMultiOption, _ value: Int) throws(FetchError) {
        let code = refusals.multi.contains(option)
            ? CURLM_UNKNOWN_OPTION : tg_curl_multi_set_long(handle, option.code, value)
        guard code == CURLM_OK else {
            throw .setup(option: option.name, reason: String(cString: curl_multi_strerror(code)),
                         consequence: Self.consequence(of: option), remedy: "use libcurl 7.30 or newer")
        }
    }

    /// What a run loses without `option` (both arrived in libcurl 7.30).
    private static func consequence(of option: CurlMultiOption) -> String {
        switch option {
        case .maxHostConnections:
            "the limit on connections to one host (--host-connections) cannot be installed"
        case .maxTotalConnections:
            "the limit on connections in all (--downloads) cannot be installed"
        }
    }
}
