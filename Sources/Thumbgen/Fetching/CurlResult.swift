import CCurl

/// How a transfer ended, in thumbgen's terms: libcurl's result code read together with what the
/// transfer's own callbacks saw. The one place a `CURLcode` is interpreted; the rest of the code
/// matches on these cases.
enum CurlResult: Sendable, Equatable {
    /// libcurl completed the exchange; the HTTP status says whether the server obliged.
    case completed
    /// The address guard refused to connect to `address`, which is not public.
    case refusedAddress(String)
    /// Nothing arrived for the policy's stall timeout.
    case stalled
    /// The body passed the policy's byte limit, as it streamed or by its announced length.
    case tooLarge
    /// The body could not be written to its file; the errno.
    case writeFailed(Int32)
    /// Cancelled, or abandoned when the loop stopped.
    case aborted
    /// libcurl's connect or total timeout ran out; libcurl's words.
    case timedOut(String)
    /// More redirects than the policy allows.
    case tooManyRedirects
    /// The body ended before its announced length.
    case truncated
    /// No connection could be made, or it broke; libcurl's words.
    case connectionFailed(String)
    /// Anything else libcurl reported; its words.
    case failed(String)

    /// How `transfer` ended, libcurl having finished it with `code`. What the callbacks saw
    /// comes first: a refused address or a stall makes libcurl report a plain
    /// `CURLE_ABORTED_BY_CALLBACK`, and the byte limit a `CURLE_WRITE_ERROR`, which would hide
    /// the cause.
    init(_ code: CURLcode, of transfer: CurlTransfer) {
        if let address = transfer.refusedAddress {
            self = .refusedAddress(address)
            return
        }
        if transfer.stalled {
            self = .stalled
            return
        }
        if transfer.exceededLimit {
            self = .tooLarge
            return
        }
        if let failure = transfer.writeError {
            self = .writeFailed(failure)
            return
        }
        self.init(code, message: transfer.message(for: code))
    }

    /// How a request that no callback of thumbgen's watched (the remote cache's `CurlRequest`)
    /// ended, libcurl having finished it with `code`; `message` gives libcurl's words.
    init(_ code: CURLcode, message: @autoclosure () -> String) {
        switch code {
        case CURLE_OK:
            self = .completed
        case CURLE_ABORTED_BY_CALLBACK:
            self = .aborted
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut(message())
        case CURLE_TOO_MANY_REDIRECTS:
            self = .tooManyRedirects
        case CURLE_PARTIAL_FILE:
            self = .truncated
        case CURLE_FILESIZE_EXCEEDED:
            self = .tooLarge
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
             CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_SSL_CONNECT_ERROR,
             CURLE_HTTP2, CURLE_HTTP2_STREAM:
            self = .connectionFailed(message())
        default:
            self = .failed(message())
        }
    }
}
