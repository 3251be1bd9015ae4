import Foundation

/// Where a run gets a URL source's bytes: `HTTPFetcher` (libcurl) by default. A capability, so
/// that a test can hand the pipeline a double that counts the requests and answers as a server
/// or a file system would (a body, a status, a full disk) without either.
protocol SourceFetching: Sendable {
    /// Starts getting `url` into the file at `path` (created or truncated), `headers` sent with
    /// it, and `login` (a URL's user info) to its origin only; `completion` runs once, on
    /// another thread. Waiting transfers start by `priority` (higher first), then `order`
    /// (lower first). Returns what stops it at once.
    func start(_ url: URL, to path: String, priority: Int, order: Int, headers: [String], login: SourceLogin?,
               completion: @escaping @Sendable (Result<FetchResponse, FetchFailure>) -> Void) -> @Sendable () -> Void
}

extension HTTPFetcher: SourceFetching {
    /// `fetch`, stopped by `Fetch.cancel`.
    func start(_ url: URL, to path: String, priority: Int, order: Int, headers: [String], login: SourceLogin?,
               completion: @escaping @Sendable (Result<FetchResponse, FetchFailure>) -> Void) -> @Sendable () -> Void {
        let transfer = fetch(url, to: path, priority: priority, order: order, headers: headers, login: login,
                             completion: completion)
        return { transfer.cancel() }
    }
}
