import CCurl
import Crypto
import Foundation

/// One HTTP request on one libcurl easy handle, streaming its body into a file.
///
/// The handle and every C callback's context belong to this object; the transfer loop keeps it
/// alive while libcurl uses it. Limits are enforced inside the callbacks: the body is cut off
/// the moment it passes `maxBytes`, and a connection to a non-public address is refused before
/// the request is sent.
final class CurlTransfer: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    let url: URL
    private let policy: FetchPolicy
    private let file: Int32
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    // Touched only on the loop's thread while the transfer runs, read after it finishes.
    private(set) var bytes: Int64 = 0
    private(set) var exceededLimit = false
    private(set) var refusedAddress: String?
    private(set) var headers: [String: String] = [:]
    private(set) var stalled = false
    private var hasher = SHA256()
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private var lastReceived: curl_off_t = -1
    private var lastProgress = ContinuousClock.now

    /// Prepares a GET of `url` into the open file descriptor `file` (not closed here), with
    /// extra request header lines such as `If-None-Match: "abc"`.
    init?(url: URL, file: Int32, policy: FetchPolicy, headers: [String] = []) {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.url = url
        self.file = file
        self.policy = policy
        errorBuffer.initialize(to: 0)
        configure()
        for line in headers { requestHeaders = curl_slist_append(requestHeaders, line) }
        if let requestHeaders { _ = tg_curl_set_pointer(handle, CURLOPT_HTTPHEADER, requestHeaders) }
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(requestHeaders)
        errorBuffer.deallocate()
    }

    private func configure() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = tg_curl_set_string(handle, CURLOPT_URL, url.absoluteString)
        _ = tg_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = tg_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = tg_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        _ = tg_curl_set_long(handle, CURLOPT_MAXREDIRS, policy.maxRedirects)
        _ = tg_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(policy.connectTimeout * 1000))
        _ = tg_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(policy.totalTimeout * 1000))
        // The stall timeout is checked here rather than with CURLOPT_LOW_SPEED_TIME, whose
        // rolling average notices a dead connection only about six seconds late.
        _ = tg_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = tg_curl_set_progress_callback(handle, curlProgress)
        _ = tg_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)
        _ = tg_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(policy.maxBytes))
        _ = tg_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")  // all that libcurl decodes
        _ = tg_curl_set_string(handle, CURLOPT_USERAGENT, policy.userAgent)
        _ = tg_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = tg_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = tg_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWrite)
        _ = tg_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = tg_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION, curlHeader)
        _ = tg_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = tg_curl_set_prereq_callback(handle, curlPrereq)
        _ = tg_curl_set_pointer(handle, CURLOPT_PREREQDATA, context)
    }

    /// Appends body bytes to the file; returning fewer than offered makes libcurl abort.
    fileprivate func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard bytes + Int64(count) <= policy.maxBytes else {
            exceededLimit = true
            return 0
        }
        var offset = 0
        while offset < count {
            let n = write(file, data + offset, count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return 0 }
            offset += n
        }
        hasher.update(bufferPointer: UnsafeRawBufferPointer(start: data, count: count))
        bytes += Int64(count)
        return count
    }

    /// Keeps the headers of the last response (a redirect's are dropped when the next starts).
    fileprivate func header(_ line: String) {
        if line.hasPrefix("HTTP/") {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headers[name] = value
    }

    /// Starts the stall clock: the transfer leaves the loop's waiting line for the network.
    func markStarted() {
        lastProgress = .now
    }

    /// Aborts the transfer (returns false) once nothing has arrived for the stall timeout.
    fileprivate func progressed(to received: curl_off_t) -> Bool {
        let now = ContinuousClock.now
        if received != lastReceived {
            lastReceived = received
            lastProgress = now
            return true
        }
        if now - lastProgress > .milliseconds(Int(policy.stallTimeout * 1000)) {
            stalled = true
            return false
        }
        return true
    }

    /// Refuses a connection to a non-public address unless private networks are allowed.
    fileprivate func mayConnect(to address: String) -> Bool {
        if policy.allowPrivateNetwork || !AddressGuard.isNonPublic(address) { return true }
        refusedAddress = address
        return false
    }

    /// The SHA-256 of the body as written to the file (after any content decoding): the
    /// source's digest, computed as it arrives rather than by reading the file again.
    func bodyDigest() -> String {
        ContentDigest.hex(hasher.finalize())
    }

    /// The final HTTP status (0 when no response arrived).
    var status: Int {
        var code = 0
        _ = tg_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The URL of the last request, after redirects.
    var finalURL: String {
        var text: UnsafeMutablePointer<CChar>?
        guard tg_curl_get_string(handle, CURLINFO_EFFECTIVE_URL, &text) == CURLE_OK, let text else {
            return url.absoluteString
        }
        return String(cString: text)
    }

    /// libcurl's own message for the last error, with the error buffer's detail.
    func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }
}

private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer? {
    context.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private let curlWrite: tg_curl_data_callback = { data, size, count, context in
    guard let data, let transfer = transfer(context) else { return 0 }
    return transfer.receive(data, size * count)
}

private let curlHeader: tg_curl_data_callback = { data, size, count, context in
    guard let data, let transfer = transfer(context) else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    transfer.header(String(decoding: bytes, as: UTF8.self))
    return size * count
}

private let curlProgress: tg_curl_progress_callback = { context, _, received, _, _ in
    guard let transfer = transfer(context) else { return 1 }
    return transfer.progressed(to: received) ? 0 : 1
}

private let curlPrereq: tg_curl_prereq_callback = { context, connectedIP, _, _, _ in
    guard let transfer = transfer(context), let connectedIP else { return 1 }
    return transfer.mayConnect(to: String(cString: connectedIP)) ? 0 : 1  // CURL_PREREQFUNC_*
}
