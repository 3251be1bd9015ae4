import Foundation
import Synchronization

/// Gets one remote source's bytes for every job attached to its `SourceTask`: from the cache
/// when they are fresh there, by a conditional request when they are stale, else by a full
/// download into a temporary file. The decode that follows reads the file.
final class DownloadOperation: AsyncOperation, @unchecked Sendable {
    let url: URL
    private let fetcher: @Sendable () -> HTTPFetcher
    private let folder: URL
    private let caching: URLCachePolicy?
    private let state = Mutex<(outcome: Result<FetchedSource, FetchFailure>?, download: HTTPFetcher.Fetch?,
                               started: ContinuousClock.Instant?)>((nil, nil, nil))
    /// Whether any job still needs the source; checked before the transfer starts.
    var isWanted: @Sendable () -> Bool = { true }
    /// The first row's number: transfers waiting for a connection start in manifest order.
    var order = 0

    /// The source's bytes, or why there are none; nil before the operation has run.
    var result: Result<FetchedSource, FetchFailure>? { state.withLock { $0.outcome } }
    /// When the operation began.
    var started: ContinuousClock.Instant? { state.withLock { $0.started } }

    /// Fetches `url` into `folder` (the cache's temporary folder when `caching` is set, so that
    /// a body moves into the store by rename).
    init(url: URL, into folder: URL, caching: URLCachePolicy?,
         fetcher: @escaping @Sendable () -> HTTPFetcher) {
        self.url = url
        self.folder = folder
        self.caching = caching
        self.fetcher = fetcher
    }

    override func execute() {
        guard isWanted() else {
            return complete(.failure(FetchFailure(error: .cancelled, attempts: 0, status: 0)))
        }
        state.withLock { $0.started = .now }
        switch caching?.plan(for: url.absoluteString) ?? .fetch {
        case .useStored(let record):
            complete(.success(stored(record, origin: .stored, response: nil)))
        case .unavailable:
            complete(.failure(FetchFailure(error: .offline, attempts: 0, status: 0)))
        case .revalidate(let record, let headers):
            start(conditionalOn: record, headers: headers) { [self] in complete($0) }
        case .fetch:
            start(conditionalOn: nil, headers: []) { [self] in complete($0) }
        }
    }

    /// Fetches the body in full and waits for it: for a stored body found damaged when the
    /// decode checked it. Blocks the calling thread (a rare path) until the transfer ends, or
    /// `cancellation` aborts it.
    func fetchAgain(cancellation: Cancellation?) -> Result<FetchedSource, FetchFailure> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<FetchedSource, FetchFailure>?>(nil)
        start(conditionalOn: nil, headers: []) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        if let cancellation {
            cancellation.whileRegistered({ [self] in abandon() }) { done.wait() }
        } else {
            done.wait()
        }
        return outcome.withLock { $0 } ?? .failure(FetchFailure(error: .cancelled, attempts: 0, status: 0))
    }

    /// Aborts the transfer at once (no job needs the source any more).
    func abandon() {
        state.withLock { $0.download }?.cancel()
    }

    private func complete(_ outcome: Result<FetchedSource, FetchFailure>) {
        state.withLock { $0.outcome = outcome }
        finish()
    }

    private func start(conditionalOn record: URLRecord?, headers: [String],
                       completion: @escaping @Sendable (Result<FetchedSource, FetchFailure>) -> Void) {
        let file = TemporaryDownload(path: folder.appendingPathComponent(TemporaryName.make(for: "download")).path)
        let download = fetcher().fetch(url, to: file.path, priority: queuePriority.rawValue,
                                       order: order, headers: headers) { [self] result in
            // On failure `file` goes away here, and with it any partial body.
            completion(result.map { accept($0, file: file, conditionalOn: record) })
        }
        state.withLock { $0.download = download }
    }

    /// Turns a successful response into the bytes to decode, storing them when allowed.
    private func accept(_ response: FetchResponse, file: TemporaryDownload,
                        conditionalOn record: URLRecord?) -> FetchedSource {
        if response.status == 304, let record, let caching {
            let updated = caching.revalidated(record, response: response)
            return stored(updated, origin: .revalidated, response: response)
        }
        if let caching, let blob = caching.fetched(url.absoluteString, file: file.path, response: response) {
            return FetchedSource(path: blob, digest: response.sha256, origin: .fetched, verified: true,
                              file: nil, response: response)
        }
        return FetchedSource(path: file.path, digest: response.sha256, origin: .fetched, verified: true,
                          file: file, response: response)
    }

    private func stored(_ record: URLRecord, origin: SourceOrigin, response: FetchResponse?) -> FetchedSource {
        let path = caching?.cache.blobs.path(record.digest) ?? ""
        return FetchedSource(path: path, digest: record.digest, origin: origin, verified: false,
                          file: nil, response: response)
    }
}

/// A remote source's bytes on disk, and how they were got.
struct FetchedSource: Sendable {
    /// The file to decode: a blob in the cache, or a temporary file.
    var path: String
    /// The SHA-256 of the bytes.
    var digest: String
    /// Fetched, revalidated, or used from the cache as it was.
    var origin: SourceOrigin
    /// Whether the bytes at `path` are known to match `digest` (a stored blob is checked only
    /// when it must be decoded).
    var verified: Bool
    /// The temporary file, deleted when the last image reading it is gone; nil for a blob.
    var file: TemporaryDownload?
    /// Status, bytes, attempts and headers; nil when no request was made.
    var response: FetchResponse?
}

/// A downloaded source's temporary file, deleted when the last image reading it is gone.
final class TemporaryDownload: Sendable {
    let path: String

    init(path: String) {
        self.path = path
    }

    deinit {
        unlink(path)
    }
}
