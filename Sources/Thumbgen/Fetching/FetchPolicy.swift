import Foundation

/// Limits and manners of HTTP fetching; every field is a command-line flag (docs/command-line.md).
public struct FetchPolicy: Sendable, Equatable {
    /// Transfers in flight at once (`--downloads`).
    public var concurrentTransfers = 16
    /// Connections to one host at once (`--host-connections`).
    public var connectionsPerHost = 6
    /// Seconds to establish a connection (`--connect-timeout`).
    public var connectTimeout = 10.0
    /// Seconds for a whole transfer, redirects included (`--timeout`).
    public var totalTimeout = 60.0
    /// Seconds a transfer may receive nothing before it is abandoned (`--stall-timeout`).
    public var stallTimeout = 15.0
    /// Retries after a connection error, 429 or 5xx (`--retries`).
    public var retries = 3
    /// The first retry's delay in seconds; each later one doubles, with jitter.
    public var retryBaseDelay = 0.5
    /// The longest wait thumbgen accepts, from backoff or `Retry-After`, in seconds.
    public var retryMaxDelay = 30.0
    /// Redirects followed at most (`--max-redirects`).
    public var maxRedirects = 5
    /// Bytes one source may have at most (`--max-bytes`), enforced while streaming.
    public var maxBytes: Int64 = 100 * 1024 * 1024
    /// Whether hosts on loopback, private, link-local and similar addresses may be fetched
    /// (`--allow-private-network`).
    public var allowPrivateNetwork = false
    /// The `User-Agent` header.
    public var userAgent = "thumbgen/\(ThumbgenVersion.current)"
    /// Credentials for sources (`--netrc-file`, `--source-headers`, the AWS key for `s3://`);
    /// none by default.
    public var credentials = SourceCredentials()
    /// Options answered as unknown without asking libcurl; empty but in tests (`CurlRefusals`).
    var refusals = CurlRefusals()

    /// The default policy.
    public init() {}
}
