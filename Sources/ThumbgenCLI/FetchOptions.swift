import ArgumentParser
import Thumbgen

/// Flags for `http(s)` sources: limits, timeouts, retries and the private-network guard.
struct FetchOptions: ParsableArguments {
    @Option(help: "Downloads in flight at once.")
    var downloads = FetchPolicy().concurrentTransfers

    @Option(help: "Connections to one host at once.")
    var hostConnections = FetchPolicy().connectionsPerHost

    @Option(help: "Seconds to connect to a server.")
    var connectTimeout = FetchPolicy().connectTimeout

    @Option(help: "Seconds one download may take in all, redirects included.")
    var timeout = FetchPolicy().totalTimeout

    @Option(help: "Seconds a download may receive nothing before it is abandoned.")
    var stallTimeout = FetchPolicy().stallTimeout

    @Option(help: "Retries after a connection error, 429 or 5xx, with exponential backoff (Retry-After honoured).")
    var retries = FetchPolicy().retries

    @Option(help: "Redirects followed at most.")
    var maxRedirects = FetchPolicy().maxRedirects

    @Option(help: "Bytes one source may have at most; larger downloads are cut off as they stream.")
    var maxBytes = FetchPolicy().maxBytes

    @Flag(help: "Allow hosts on loopback, private, link-local and similar addresses (refused by default).")
    var allowPrivateNetwork = false

    /// The policy these flags describe.
    var policy: FetchPolicy {
        var policy = FetchPolicy()
        policy.concurrentTransfers = downloads
        policy.connectionsPerHost = hostConnections
        policy.connectTimeout = connectTimeout
        policy.totalTimeout = timeout
        policy.stallTimeout = stallTimeout
        policy.retries = retries
        policy.maxRedirects = maxRedirects
        policy.maxBytes = maxBytes
        policy.allowPrivateNetwork = allowPrivateNetwork
        return policy
    }

    func validate() throws {
        guard downloads >= 1, hostConnections >= 1 else {
            throw ValidationError("--downloads and --host-connections must be at least 1")
        }
        // Finite too: libcurl takes whole milliseconds, and `inf` does not convert.
        guard [connectTimeout, timeout, stallTimeout].allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw ValidationError("--connect-timeout, --timeout and --stall-timeout must be positive numbers of seconds")
        }
        guard retries >= 0, maxRedirects >= 0, maxBytes > 0 else {
            throw ValidationError("--retries and --max-redirects must be 0 or more, --max-bytes positive")
        }
    }
}
