import CCurl
import Foundation
import Synchronization

/// A request to a store the user named (the remote cache), not to a source: answered in
/// memory, on the calling thread.
///
/// No address guard: the store is where the user keeps the cache, often on a private network
/// or on 127.0.0.1, and it is named by a flag, not by a manifest row. The protocols are still
/// only http and https, and redirects are not followed (a store that redirects is misconfigured,
/// and a redirect would carry the credentials elsewhere).
struct StoreRequest: Sendable {
    /// The methods a store is asked with.
    enum Method: String, Sendable { case get = "GET", put = "PUT" }

    var method: Method
    var url: String
    /// Extra header lines (`Authorization: Bearer ...`, `x-amz-content-sha256: ...`).
    var headers: [String] = []
    /// The body of a PUT.
    var body: [UInt8] = []
    var auth: StoreAuth = .none
    var limits: StoreLimits
}

/// How a store request proves who sends it (a bearer token goes as a header line).
enum StoreAuth: Sendable, Equatable {
    case none
    case basic(user: String, password: String)
    /// The user's netrc (`CURLOPT_NETRC`, optional): `file`, else libcurl's `~/.netrc`.
    case netrc(file: String?)
    /// Signed by libcurl's AWS Signature Version 4 (`CURLOPT_AWS_SIGV4`), `provider` being
    /// `aws:amz:REGION:s3`.
    case awsSigV4(provider: String, keyID: String, secret: String)
}

/// How long a store request may take, and how much it may bring back.
struct StoreLimits: Sendable, Equatable {
    /// Seconds to connect.
    var connect: Double
    /// Seconds with less than one byte a second before the request is abandoned
    /// (`CURLOPT_LOW_SPEED_TIME`, whole seconds).
    var stall: Double
    /// Seconds for the whole request.
    var total: Double
    /// Bytes a body may have.
    var maxBytes: Int64
}

/// What a store answered: the status and the body.
struct StoreResponse: Sendable, Equatable {
    var status: Int
    var body: [UInt8]
}

/// One libcurl easy handle, used for one store request at a time and kept between requests,
/// so that libcurl keeps the connection (and TLS session) open for the next one. The
/// remote cache needs only GET and PUT: a PUT of a file that is there already replaces it,
/// which is how a poisoned one is repaired, so no HEAD is asked first.
final class CurlRequest: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    // Touched only by `perform`'s thread while it runs.
    private var received: [UInt8] = []
    private var maxBytes: Int64 = 0
    private var exceeded = false

    /// A fresh handle; nil when libcurl cannot make one.
    init?() {
        CurlRuntime.start()
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(to: 0)
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Sends `request` and waits for the answer; the failure says why none came.
    func perform(_ request: StoreRequest) -> Result<StoreResponse, FetchError> {
        curl_easy_reset(handle)  // options only: open connections stay
        errorBuffer[0] = 0
        received = []
        maxBytes = request.limits.maxBytes
        exceeded = false
        var lines: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(lines) }
        for line in request.headers { lines = curl_slist_append(lines, line) }
        return request.body.withUnsafeBufferPointer { body -> Result<StoreResponse, FetchError> in
            do throws(FetchError) {
                try configure(request, headers: lines, body: body)
            } catch {
                return .failure(error)
            }
            let code = curl_easy_perform(handle)
            if exceeded { return .failure(.tooLarge(limit: request.limits.maxBytes)) }
            switch CurlResult(code, message: message(for: code)) {
            case .completed:
                var status = 0
                _ = tg_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
                return .success(StoreResponse(status: status, body: received))
            case .timedOut(let words): return .failure(.timeout(words))
            case .connectionFailed(let words): return .failure(.connection(words))
            case .tooLarge: return .failure(.tooLarge(limit: request.limits.maxBytes))
            case .truncated: return .failure(.truncated)
            case .failed(let words): return .failure(.other(words))
            default: return .failure(.other(message(for: code)))
            }
        }
    }

    private func configure(_ request: StoreRequest, headers: UnsafeMutablePointer<curl_slist>?,
                           body: UnsafeBufferPointer<UInt8>) throws(FetchError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(.url) { tg_curl_set_string($0, $1, request.url) }
        try CurlTransfer.restrictProtocols(handle, refusing: CurlRefusals())
        try set(.connectTimeoutMS) { tg_curl_set_long($0, $1, Int(request.limits.connect * 1000)) }
        try set(.timeoutMS) { tg_curl_set_long($0, $1, Int(request.limits.total * 1000)) }
        // A stall is under one byte a second for the stall time (whole seconds, at least one).
        try set(.lowSpeedLimit) { tg_curl_set_long($0, $1, 1) }
        try set(.lowSpeedTime) { tg_curl_set_long($0, $1, max(1, Int(request.limits.stall.rounded(.up)))) }
        try set(.maxFileSizeLarge) { tg_curl_set_offset($0, $1, curl_off_t(request.limits.maxBytes)) }
        try set(.userAgent) { tg_curl_set_string($0, $1, "thumbgen/\(ThumbgenVersion.current)") }
        try set(.noSignal) { tg_curl_set_long($0, $1, 1) }
        try set(.errorBuffer) { tg_curl_set_pointer($0, $1, errorBuffer) }
        try set(.writeFunction) { tg_curl_set_data_callback($0, $1, storeWrite) }
        try set(.writeData) { tg_curl_set_pointer($0, $1, context) }
        try set(.httpHeader) { tg_curl_set_pointer($0, $1, headers) }
        switch request.method {
        case .get: break
        case .put:
            // The body as POSTFIELDS, sent as a PUT: libcurl's SigV4 signs the hash of
            // POSTFIELDS (an upload callback's body would be signed as empty).
            try set(.postFieldSizeLarge) { tg_curl_set_offset($0, $1, curl_off_t(body.count)) }
            try set(.postFields) { tg_curl_set_pointer($0, $1, UnsafeMutableRawPointer(mutating: body.baseAddress)) }
            try set(.customRequest) { tg_curl_set_string($0, $1, "PUT") }
        }
        switch request.auth {
        case .none: break
        case .basic(let user, let password):
            // CURLAUTH_BASIC, a macro Swift cannot see: bit 0.
            try set(.httpAuth) { tg_curl_set_long($0, $1, 1) }
            try set(.username) { tg_curl_set_string($0, $1, user) }
            try set(.password) { tg_curl_set_string($0, $1, password) }
        case .netrc(let file):
            try set(.netrc) { tg_curl_set_long($0, $1, Int(CURL_NETRC_OPTIONAL.rawValue)) }
            if let file { try set(.netrcFile) { tg_curl_set_string($0, $1, file) } }
        case .awsSigV4(let provider, let keyID, let secret):
            try set(.awsSigV4) { tg_curl_set_string($0, $1, provider) }
            try set(.username) { tg_curl_set_string($0, $1, keyID) }
            try set(.password) { tg_curl_set_string($0, $1, secret) }
        }
    }

    private func set(_ option: CurlOption,
                     _ apply: (UnsafeMutableRawPointer, CURLoption) -> CURLcode) throws(FetchError) {
        let code = CurlTransfer.attempt(option, on: handle, refusing: CurlRefusals(), apply)
        guard code == CURLE_OK else { throw CurlTransfer.refusal(option, code, nil) }
    }

    /// Keeps body bytes; returning fewer than offered makes libcurl abort.
    fileprivate func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard Int64(received.count + count) <= maxBytes else {
            exceeded = true
            return 0
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) {
            received.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
        }
        return count
    }

    private func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }
}

/// Idle `CurlRequest`s, so that each thread asking a store reuses a warm connection.
final class CurlRequestPool: Sendable {
    private let idle = Mutex<[CurlRequest]>([])

    /// Sends `request` on an idle handle (or a new one) and puts the handle back.
    func perform(_ request: StoreRequest) -> Result<StoreResponse, FetchError> {
        let handle = idle.withLock { $0.popLast() } ?? CurlRequest()
        guard let handle else { return .failure(.other("libcurl could not start a request")) }
        let result = handle.perform(request)
        idle.withLock { $0.append(handle) }
        return result
    }
}

private let storeWrite: tg_curl_data_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    return Unmanaged<CurlRequest>.fromOpaque(context).takeUnretainedValue().receive(data, size * count)
}
