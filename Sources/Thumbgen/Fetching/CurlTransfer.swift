import CCurl
import Crypto
import Foundation

/// One HTTP request on one libcurl easy handle, streaming its body into the file it opens.
///
/// The handle, the file and every C callback's context belong to this object; the transfer
/// loop keeps it alive while libcurl uses it, and `end(_:)` lets go of the file (closing it)
/// as soon as the transfer is over. Limits are enforced inside the callbacks: the body is cut
/// off the moment it passes `maxBytes`, and a connection to a non-public address is refused
/// before the request is sent.
///
/// Every option set is checked: a transfer libcurl cannot be set up for as asked is never
/// started (`FetchError.setup`, naming the option), for a libcurl that silently lacked the
/// address guard or the protocol restriction would fetch what thumbgen promises to refuse.
final class CurlTransfer: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    let url: URL
    private let policy: FetchPolicy
    /// Where the body goes, until the transfer ends; its descriptor closes when this lets go.
    private var file: DownloadFile?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    // Touched only on the loop's thread while the transfer runs, read after it finishes.
    private(set) var bytes: Int64 = 0
    private(set) var exceededLimit = false
    private(set) var refusedAddress: String?
    private(set) var headers: [String: String] = [:]
    private(set) var stalled = false
    /// Why the body could not be written to its file (an errno), when it could not.
    private(set) var writeError: Int32?
    /// The body's file.
    let path: String
    private var hasher = SHA256()
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private var lastReceived: curl_off_t = -1
    private var lastProgress = ContinuousClock.now

    /// What the request carries to prove who asks; with any, redirects are left to
    /// `HTTPFetcher`, which follows them without the credentials to another origin.
    private let credentials: TransferCredentials?

    /// Prepares a GET of `url` into the file at `path` (created or truncated), with extra
    /// request header lines such as `If-None-Match: "abc"` and `credentials`; throws when the
    /// file cannot be opened, libcurl cannot start a transfer or refuses an option.
    init(url: URL, into path: String, policy: FetchPolicy, headers: [String] = [],
         credentials: TransferCredentials? = nil) throws(FetchError) {
        // The file first: a path that cannot be written is reported as such, whatever libcurl says.
        let file = try DownloadFile(path: path)
        guard let handle = curl_easy_init() else { throw .other("libcurl could not start a transfer") }
        self.handle = handle
        self.path = path
        self.url = url
        self.file = file
        self.policy = policy
        self.credentials = credentials
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(to: 0)
        for line in headers + (credentials?.headers ?? []) { requestHeaders = curl_slist_append(requestHeaders, line) }
        try configure()
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(requestHeaders)
        errorBuffer.deallocate()
    }

    /// Sets every option of the transfer; throws at the first one libcurl refuses.
    private func configure() throws(FetchError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(.url) { tg_curl_set_string($0, $1, url.absoluteString) }
        try Self.restrictProtocols(handle, refusing: policy.refusals)
        if let credentials {
            // Never CURLOPT_UNRESTRICTED_AUTH: and libcurl keeps custom headers on a redirect,
            // and matches a netrc by host alone; so HTTPFetcher follows redirects itself.
            try set(.followLocation) { tg_curl_set_long($0, $1, 0) }
            if let netrcFile = credentials.netrcFile {
                try set(.netrc) { tg_curl_set_long($0, $1, Int(CURL_NETRC_OPTIONAL.rawValue)) }
                try set(.netrcFile) { tg_curl_set_string($0, $1, netrcFile) }
            }
            if let login = credentials.login {
                try set(.username) { tg_curl_set_string($0, $1, login.user) }
                try set(.password) { tg_curl_set_string($0, $1, login.password) }
            }
            if let sigV4 = credentials.sigV4 {
                try set(.awsSigV4, Self.sigV4Missing) { tg_curl_set_string($0, $1, sigV4.provider) }
                try set(.username) { tg_curl_set_string($0, $1, sigV4.keyID) }
                try set(.password) { tg_curl_set_string($0, $1, sigV4.secret) }
            }
        } else {
            try set(.followLocation) { tg_curl_set_long($0, $1, 1) }
            try set(.maxRedirs) { tg_curl_set_long($0, $1, policy.maxRedirects) }
        }
        try set(.connectTimeoutMS) { tg_curl_set_long($0, $1, Int(policy.connectTimeout * 1000)) }
        try set(.timeoutMS) { tg_curl_set_long($0, $1, Int(policy.totalTimeout * 1000)) }
        // The stall timeout is checked here rather than with CURLOPT_LOW_SPEED_TIME, whose
        // rolling average notices a dead connection only about six seconds late.
        try set(.noProgress) { tg_curl_set_long($0, $1, 0) }
        try set(.xferInfoFunction) { handle, _ in tg_curl_set_progress_callback(handle, curlProgress) }
        try set(.xferInfoData) { tg_curl_set_pointer($0, $1, context) }
        try set(.maxFileSizeLarge) { tg_curl_set_offset($0, $1, curl_off_t(policy.maxBytes)) }
        try set(.acceptEncoding) { tg_curl_set_string($0, $1, "") }  // all that libcurl decodes
        try set(.userAgent) { tg_curl_set_string($0, $1, policy.userAgent) }
        try set(.noSignal) { tg_curl_set_long($0, $1, 1) }
        try set(.errorBuffer) { tg_curl_set_pointer($0, $1, errorBuffer) }
        try set(.writeFunction) { tg_curl_set_data_callback($0, $1, curlWrite) }
        try set(.writeData) { tg_curl_set_pointer($0, $1, context) }
        try set(.headerFunction) { tg_curl_set_data_callback($0, $1, curlHeader) }
        try set(.headerData) { tg_curl_set_pointer($0, $1, context) }
        if let requestHeaders { try set(.httpHeader) { tg_curl_set_pointer($0, $1, requestHeaders) } }
        // With private networks allowed the guard has nothing to refuse, so a libcurl without
        // the hook (older than 7.80) can still fetch.
        if !policy.allowPrivateNetwork {
            try set(.prereqFunction, Self.guardMissing) { handle, _ in tg_curl_set_prereq_callback(handle, curlPrereq) }
            try set(.prereqData, Self.guardMissing) { tg_curl_set_pointer($0, $1, context) }
        }
    }

    /// Sets one option on this transfer's handle; throws, naming it, when libcurl refuses it.
    private func set(_ option: CurlOption, _ missing: (consequence: String, remedy: String)? = nil,
                     _ apply: (UnsafeMutableRawPointer, CURLoption) -> CURLcode) throws(FetchError) {
        let code = Self.attempt(option, on: handle, refusing: policy.refusals, apply)
        guard code == CURLE_OK else { throw Self.refusal(option, code, missing) }
    }

    /// What `apply` (one of shim.h's typed setters, given the handle and the option's constant)
    /// returns, or, for an option `refusals` names, the `CURLE_UNKNOWN_OPTION` a libcurl without
    /// it would return. The one setopt wrapper.
    static func attempt(_ option: CurlOption, on handle: UnsafeMutableRawPointer, refusing refusals: CurlRefusals,
                        _ apply: (UnsafeMutableRawPointer, CURLoption) -> CURLcode) -> CURLcode {
        if refusals.easy.contains(option) { return CURLE_UNKNOWN_OPTION }
        return apply(handle, option.code)
    }

    /// The error for an option libcurl refused with `code`.
    static func refusal(_ option: CurlOption, _ code: CURLcode,
                                _ missing: (consequence: String, remedy: String)?) -> FetchError {
        .setup(option: option.name, reason: String(cString: curl_easy_strerror(code)),
               consequence: missing?.consequence, remedy: missing?.remedy)
    }

    /// What a row loses without the pre-request hook, and the ways back.
    private static let guardMissing = (
        consequence: "the address guard that refuses non-public addresses cannot be installed",
        remedy: "use libcurl 7.80 or newer, or --allow-private-network to fetch without the guard")

    /// What an `s3://` row loses without libcurl's SigV4, and the way back.
    private static let sigV4Missing = (
        consequence: "s3:// sources cannot be signed", remedy: "use libcurl 7.75 or newer")

    /// What a row loses without either protocol option, and the way back.
    private static let protocolsMissing = (
        consequence: "the restriction to http and https (redirects included) cannot be installed",
        remedy: "use libcurl 7.85 or newer")

    /// Only `http` and `https`, for the first request and every redirect (a redirect to
    /// `file://` would read local files, to `ftp://` or `gopher://` reach other services):
    /// `CURLOPT_PROTOCOLS_STR` (7.85) where libcurl has it, else the bitmask it replaced
    /// (7.19.4), which restricts just the same. Required whatever `--allow-private-network`
    /// says, since that flag is about addresses, not protocols.
    static func restrictProtocols(_ handle: UnsafeMutableRawPointer, refusing refusals: CurlRefusals) throws(FetchError) {
        let pairs: [(CurlOption, CurlOption)] = [(.protocolsStr, .protocols), (.redirProtocolsStr, .redirProtocols)]
        for (named, bitmask) in pairs {
            let code = attempt(named, on: handle, refusing: refusals) { tg_curl_set_string($0, $1, CurlVersion.webProtocols) }
            if code == CURLE_OK { continue }
            guard code == CURLE_UNKNOWN_OPTION else { throw refusal(named, code, protocolsMissing) }
            let fallback = attempt(bitmask, on: handle, refusing: refusals) {
                tg_curl_set_long($0, $1, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
            }
            guard fallback == CURLE_OK else { throw refusal(bitmask, fallback, protocolsMissing) }
        }
    }

    /// Which of the safeguards this libcurl can install, tried on a handle that never runs
    /// (`refusals` apply, as they do to transfers): for `thumbgen doctor`.
    static func probeSafeguards(refusing refusals: CurlRefusals) -> (addressGuard: Bool, protocolRestriction: Bool) {
        CurlRuntime.start()
        guard let handle = curl_easy_init() else { return (false, false) }
        defer { curl_easy_cleanup(handle) }
        let addressGuard = attempt(.prereqFunction, on: handle, refusing: refusals) { handle, _ in
            tg_curl_set_prereq_callback(handle, curlPrereq)
        } == CURLE_OK
        let protocolRestriction = (try? restrictProtocols(handle, refusing: refusals)) != nil
        return (addressGuard, protocolRestriction)
    }

    /// Appends body bytes to the file; returning fewer than offered makes libcurl abort.
    fileprivate func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard bytes + Int64(count) <= policy.maxBytes else {
            exceededLimit = true
            return 0
        }
        if let failure = file?.write(UnsafeRawBufferPointer(start: data, count: count)) {
            writeError = failure
            return 0
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

    /// Ends the transfer, libcurl having finished it (or `CurlMulti` aborted it) with `code`:
    /// lets go of the file, so it is closed before anyone reads it, and says how it went.
    func end(_ code: CURLcode) -> CurlResult {
        file = nil
        return CurlResult(code, of: self)
    }

    /// The SHA-256 of the body as written to the file (after any content decoding): the
    /// source's digest, computed as it arrives rather than by reading the file again.
    func bodyDigest() -> String {
        ContentDigest.hex(hasher.finalize())
    }

    /// Whether this transfer leaves redirects to its caller (it carries credentials).
    var followsRedirectsItself: Bool { credentials != nil }

    /// Where a redirect response points, resolved against the request's URL (only when
    /// libcurl did not follow it itself).
    var redirectURL: URL? {
        var text: UnsafeMutablePointer<CChar>?
        guard tg_curl_get_string(handle, CURLINFO_REDIRECT_URL, &text) == CURLE_OK, let text else { return nil }
        return URL(string: String(cString: text))
    }

    /// The final HTTP status (0 when no response arrived).
    var status: Int {
        var code = 0
        _ = tg_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
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
