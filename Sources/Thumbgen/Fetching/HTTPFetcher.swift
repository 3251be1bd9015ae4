import CCurl
import Foundation
import Synchronization

/// Downloads URLs into files through one shared libcurl event loop, with retries, limits and
/// the address guard of `FetchPolicy`.
public final class HTTPFetcher: Sendable {
    /// The limits and manners in force.
    public let policy: FetchPolicy
    private let loop: TransferLoop
    private let retry: RetryPolicy

    /// A fetcher with its own transfer loop.
    public init(policy: FetchPolicy = FetchPolicy()) {
        self.policy = policy
        self.loop = TransferLoop(policy: policy)
        self.retry = RetryPolicy(policy: policy)
    }

    deinit {
        loop.stop()
    }

    /// A download in progress; `cancel()` aborts it (the completion then gets `.cancelled`).
    public final class Fetch: Sendable {
        fileprivate let state = Mutex<(transfer: CurlTransfer?, cancelled: Bool)>((nil, false))
        fileprivate let loop: TransferLoop

        fileprivate init(loop: TransferLoop) {
            self.loop = loop
        }

        /// Stops the download at once, or its next retry from starting.
        public func cancel() {
            let transfer = state.withLock { state -> CurlTransfer? in
                state.cancelled = true
                return state.transfer
            }
            if let transfer { loop.cancel(transfer) }
        }

        fileprivate var isCancelled: Bool { state.withLock { $0.cancelled } }
    }

    /// Downloads `url` into `path` (created or truncated), retrying as the policy allows;
    /// `completion` runs once, on a private queue. Waiting transfers start by `priority`
    /// (higher first), then `order` (lower first: the manifest's order). `headers` are extra
    /// request header lines (the cache's conditional `If-None-Match`, `If-Modified-Since`).
    @discardableResult
    public func fetch(_ url: URL, to path: String, priority: Int = 0, order: Int = 0,
                      headers: [String] = [],
                      completion: @escaping @Sendable (Result<FetchResponse, FetchFailure>) -> Void)
        -> Fetch
    {
        let download = Fetch(loop: loop)
        attempt(1, url: url, path: path, rank: (priority, order), headers: headers,
                download: download, completion: completion)
        return download
    }

    private func attempt(_ number: Int, url: URL, path: String, rank: (priority: Int, order: Int),
                         headers: [String], download: Fetch,
                         completion: @escaping @Sendable (Result<FetchResponse, FetchFailure>) -> Void) {
        guard let file = DownloadFile(path: path) else {
            let reason = String(cString: strerror(errno))
            return completion(.failure(FetchFailure(error: .other("\(path): cannot write: \(reason)"),
                                                    attempts: number - 1, status: 0)))
        }
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(url: url, file: file.descriptor, policy: policy, headers: headers)
        } catch {
            // Not retried: the same libcurl refuses the same option again. Nothing was sent.
            file.close()
            return completion(.failure(FetchFailure(error: error, attempts: number - 1, status: 0)))
        }
        let proceed = download.state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.transfer = transfer
            return true
        }
        guard proceed else {
            file.close()
            return completion(.failure(FetchFailure(error: .cancelled, attempts: number - 1, status: 0)))
        }
        loop.add(transfer, priority: rank.priority, order: rank.order) { [self] code in
            file.close()
            let outcome = result(of: transfer, code: code, attempts: number)
            guard case .failure(let failure) = outcome, retry.isRetryable(failure.error),
                  number <= policy.retries, !download.isCancelled else {
                if download.isCancelled {
                    return completion(.failure(FetchFailure(error: .cancelled, attempts: number,
                                                            status: transfer.status)))
                }
                return completion(outcome)
            }
            let wait = retry.delay(afterAttempt: number, retryAfter: transfer.headers["retry-after"])
            DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [self] in
                attempt(number + 1, url: url, path: path, rank: rank, headers: headers,
                        download: download, completion: completion)
            }
        }
    }

    private func result(of transfer: CurlTransfer, code: CURLcode, attempts: Int)
        -> Result<FetchResponse, FetchFailure>
    {
        classify(transfer, code: code, attempts: attempts).mapError {
            FetchFailure(error: $0, attempts: attempts, status: transfer.status)
        }
    }

    private func classify(_ transfer: CurlTransfer, code: CURLcode, attempts: Int)
        -> Result<FetchResponse, FetchError>
    {
        if let address = transfer.refusedAddress { return .failure(.forbiddenAddress(address)) }
        if transfer.stalled {
            return .failure(.timeout("nothing received for \(policy.stallTimeout) s"))
        }
        if transfer.exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(.tooLarge(limit: policy.maxBytes))
        }
        switch code {
        case CURLE_OK:
            let status = transfer.status
            guard (200...299).contains(status) || status == 304 else {
                return .failure(.httpStatus(status))
            }
            let h = transfer.headers
            return .success(FetchResponse(
                status: status, bytes: transfer.bytes, attempts: attempts,
                etag: h["etag"], lastModified: h["last-modified"],
                cacheControl: h["cache-control"], expires: h["expires"], date: h["date"],
                sha256: status == 304 ? "" : transfer.bodyDigest()))
        case CURLE_ABORTED_BY_CALLBACK:
            return .failure(.cancelled)
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timeout(transfer.message(for: code)))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(.tooManyRedirects)
        case CURLE_PARTIAL_FILE:
            return .failure(.truncated)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
             CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_SSL_CONNECT_ERROR,
             CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .failure(.connection(transfer.message(for: code)))
        default:
            return .failure(.other(transfer.message(for: code)))
        }
    }
}
