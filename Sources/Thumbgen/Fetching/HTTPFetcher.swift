import Foundation
import Synchronization

/// Downloads URLs into files through one shared libcurl event loop, with retries, limits and
/// the address guard of `FetchPolicy`.
public final class HTTPFetcher: Sendable {
    /// The limits and manners in force.
    public let policy: FetchPolicy
    /// The loop every transfer runs on, or why libcurl would not set one up: then every fetch
    /// fails with that reason at once, sending nothing.
    private let loop: Result<TransferLoop, FetchError>
    private let retry: RetryPolicy

    /// A fetcher with its own transfer loop.
    public init(policy: FetchPolicy = FetchPolicy()) {
        self.policy = policy
        self.loop = Result { () throws(FetchError) in try TransferLoop(policy: policy) }
        self.retry = RetryPolicy(policy: policy)
    }

    deinit {
        if case .success(let loop) = loop { loop.stop() }
    }

    /// A download in progress; `cancel()` aborts it (the completion then gets `.cancelled`).
    public final class Fetch: Sendable {
        fileprivate let state = Mutex<(transfer: CurlTransfer?, cancelled: Bool)>((nil, false))
        fileprivate let loop: TransferLoop?

        fileprivate init(loop: TransferLoop?) {
            self.loop = loop
        }

        /// Stops the download at once, or its next retry from starting.
        public func cancel() {
            let transfer = state.withLock { state -> CurlTransfer? in
                state.cancelled = true
                return state.transfer
            }
            if let transfer { loop?.cancel(transfer) }
        }

        fileprivate var isCancelled: Bool { state.withLock { $0.cancelled } }
    }

    /// Downloads `url` into `path` (created or truncated), retrying as the policy allows;
    /// `completion` runs once, on a private queue. Waiting transfers start by `priority`
    /// (higher first), then `order` (lower first: the manifest's order). `headers` are extra
    /// request header lines (the cache's conditional `If-None-Match`, `If-Modified-Since`);
    /// `login` (a URL source's user info) goes to `url`'s origin only.
    @discardableResult
    public func fetch(_ url: URL, to path: String, priority: Int = 0, order: Int = 0,
                      headers: [String] = [], login: SourceLogin? = nil,
                      completion: @escaping @Sendable (Result<FetchResponse, FetchFailure>) -> Void)
        -> Fetch
    {
        let download = Fetch(loop: try? loop.get())
        switch FetchHop.first(url, credentials: policy.credentials, login: login) {
        case .failure(let error):
            completion(.failure(FetchFailure(error: error, attempts: 0, status: 0)))
        case .success(let hop):
            attempt(1, hop: hop, path: path, rank: (priority, order), headers: headers,
                    download: download, completion: completion)
        }
        return download
    }

    private func attempt(_ number: Int, hop: FetchHop, path: String, rank: (priority: Int, order: Int),
                         headers: [String], download: Fetch,
                         completion: @escaping @Sendable (Result<FetchResponse, FetchFailure>) -> Void) {
        let loop: TransferLoop, transfer: CurlTransfer
        do {
            // Not retried: the same libcurl refuses the same option again, and the same path
            // stays unwritable. Nothing was sent.
            loop = try self.loop.get()
            var policy = policy
            policy.maxRedirects -= hop.redirects  // what libcurl may still follow itself
            transfer = try CurlTransfer(url: hop.url, into: path, policy: policy, headers: headers,
                                        credentials: hop.credentials)
        } catch {
            return completion(.failure(FetchFailure(error: error, attempts: number - 1, status: 0)))
        }
        let proceed = download.state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.transfer = transfer
            return true
        }
        guard proceed else {
            return completion(.failure(FetchFailure(error: .cancelled, attempts: number - 1, status: 0)))
        }
        loop.add(transfer, priority: rank.priority, order: rank.order) { [self] ended in
            // A transfer with credentials leaves its redirects to thumbgen, which takes them
            // along only within the first request's origin.
            if transfer.followsRedirectsItself, case .completed = ended, !download.isCancelled,
               FetchHop.redirectStatuses.contains(transfer.status), let next = transfer.redirectURL {
                guard hop.redirects < policy.maxRedirects else {
                    return completion(.failure(FetchFailure(error: .tooManyRedirects, attempts: number,
                                                            status: transfer.status)))
                }
                return attempt(number, hop: hop.following(to: next), path: path, rank: rank, headers: headers,
                               download: download, completion: completion)
            }
            let outcome = result(of: transfer, ended, attempts: number)
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
                attempt(number + 1, hop: hop, path: path, rank: rank, headers: headers,
                        download: download, completion: completion)
            }
        }
    }

    private func result(of transfer: CurlTransfer, _ ended: CurlResult, attempts: Int)
        -> Result<FetchResponse, FetchFailure>
    {
        classify(transfer, ended, attempts: attempts).mapError {
            FetchFailure(error: $0, attempts: attempts, status: transfer.status)
        }
    }

    /// The response, or the error row reports give, for a transfer that ended as `ended`.
    private func classify(_ transfer: CurlTransfer, _ ended: CurlResult, attempts: Int)
        -> Result<FetchResponse, FetchError>
    {
        switch ended {
        case .completed:
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
        case .refusedAddress(let address): return .failure(.forbiddenAddress(address))
        case .stalled: return .failure(.timeout("nothing received for \(policy.stallTimeout) s"))
        case .tooLarge: return .failure(.tooLarge(limit: policy.maxBytes))
        case .aborted: return .failure(.cancelled)
        case .timedOut(let message): return .failure(.timeout(message))
        case .tooManyRedirects: return .failure(.tooManyRedirects)
        case .truncated: return .failure(.truncated)
        case .connectionFailed(let message): return .failure(.connection(message))
        case .writeFailed(let code): return .failure(.localWrite(path: transfer.path, errno: code))
        case .failed(let message): return .failure(.other(message))
        }
    }
}
