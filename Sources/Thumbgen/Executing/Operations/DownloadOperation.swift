import Foundation
import Synchronization

/// Gets one URL source's bytes for every job attached to its `SourceTask`, as the first
/// job's plan says (`RowPlan.SourceStep`): the cache's stored body, a conditional request, or
/// a full download into a temporary file. A stored body is handed on unchecked: the identify
/// stage checks it only if a job still needs its pixels (after a `304`, every output may be
/// cached already, and hashing every body would cost a warm run dearly).
final class DownloadOperation: AsyncOperation, @unchecked Sendable {
    let url: URL
    /// What the cache calls the source: its URL, or its `SourceKey`.
    let identity: String
    /// The login the URL's user info gave, sent to its origin only.
    var login: SourceLogin?
    private let fetcher: @Sendable () -> any SourceFetching
    private let folder: URL
    private let spare: (@Sendable () -> URL)?
    private let step: RowPlan.SourceStep
    private let storing: URLCachePolicy?
    private let state = Mutex<(outcome: Result<FetchedSource, FetchFailure>?, stop: (@Sendable () -> Void)?,
                               started: ContinuousClock.Instant?)>((nil, nil, nil))
    /// Whether any job still needs the source; checked before the transfer starts.
    var isWanted: @Sendable () -> Bool = { true }
    /// The first row's number: transfers waiting for a connection start in manifest order.
    var order = 0

    /// The source's bytes, or why there are none; nil before the operation has run.
    var result: Result<FetchedSource, FetchFailure>? { state.withLock { $0.outcome } }
    /// When the operation began.
    var started: ContinuousClock.Instant? { state.withLock { $0.started } }

    /// Gets `url` by `step` into `folder`, its body stored under `identity` (the cache's temporary folder when `storing` is
    /// set, so that a body moves into the store by rename), or into the folder `spare` gives
    /// when `folder`'s file system is full.
    init(url: URL, identity: String, step: RowPlan.SourceStep, into folder: URL, spare: (@Sendable () -> URL)? = nil,
         storing: URLCachePolicy?, fetcher: @escaping @Sendable () -> any SourceFetching) {
        self.url = url
        self.identity = identity
        self.step = step
        self.folder = folder
        self.spare = spare
        self.storing = storing
        self.fetcher = fetcher
    }

    override func execute() {
        guard isWanted() else {
            return complete(.failure(FetchFailure(error: .cancelled, attempts: 0, status: 0)))
        }
        state.withLock { $0.started = .now }
        switch step {
        case .stored(let record):
            complete(.success(stored(record, origin: .stored, response: nil)))
        case .revalidate(let record, let headers):
            start(conditionalOn: record, headers: headers) { [self] result in
                guard case .success(let received) = result, received.response.status == 304,
                      let storing else {
                    return complete(result.map { accept($0) })
                }
                let updated = storing.revalidated(record, response: received.response)
                complete(.success(stored(updated, origin: .revalidated, response: received.response)))
            }
        case .fetch, .local:
            start(conditionalOn: nil, headers: []) { [self] in complete($0.map { accept($0) }) }
        }
    }

    /// Aborts the transfer at once (no job needs the source any more).
    func abandon() {
        state.withLock { $0.stop }?()
    }

    private func complete(_ outcome: Result<FetchedSource, FetchFailure>) {
        state.withLock { $0.outcome = outcome }
        finish()
    }

    /// A response with the file its body is in (removed with the value unless it is moved).
    private struct Received {
        var response: FetchResponse
        var file: TemporaryDownload
    }

    private func start(conditionalOn record: URLRecord?, headers: [String], into folder: URL? = nil,
                       completion: @escaping @Sendable (Result<Received, FetchFailure>) -> Void) {
        // Inside the run's locked downloads folder, whose one lock covers its files: a plain
        // unique name, which no sweeper takes for a temporary of its own.
        let into = folder ?? self.folder
        let file = TemporaryDownload(path: into.appendingPathComponent("download-\(UUID().uuidString)").path)
        let stop = fetcher().start(url, to: file.path, priority: queuePriority.rawValue,
                                       order: order, headers: headers, login: login) { [self] result in
            // A full file system under the cache: once more, outside it (a write the cache
            // refused, said and counted as the others are).
            if folder == nil, let spare, case .failure(let failure) = result,
               case .localWrite(_, let reason, isFull: true) = failure.error, isWanted() {
                storing?.cache.health.refused(reason)
                return start(conditionalOn: record, headers: headers, into: spare(), completion: completion)
            }
            // On failure `file` goes away here, and with it any partial body.
            completion(result.map { Received(response: $0, file: file) })
        }
        state.withLock { $0.stop = stop }
    }

    /// Turns a full response into the bytes to decode, storing them when allowed. The run reads
    /// its own file either way: a stored body is a second name of it (`URLCachePolicy.fetched`).
    private func accept(_ received: Received) -> FetchedSource {
        let response = received.response
        storing?.fetched(identity, file: received.file.path, response: response)
        return FetchedSource(path: received.file.path, digest: response.sha256, origin: .fetched,
                             verified: true, file: received.file, response: response)
    }

    /// The stored body `record` names, unchecked.
    private func stored(_ record: URLRecord, origin: SourceOrigin, response: FetchResponse?) -> FetchedSource {
        let path = storing?.cache.blobs.path(record.digest) ?? ""
        return FetchedSource(path: path, digest: record.digest, origin: origin, verified: false,
                             file: nil, response: response)
    }
}

/// A URL source's bytes on disk, and how they were got.
struct FetchedSource: Sendable {
    /// The file to decode: a blob in the cache, or a temporary file.
    var path: String
    /// The SHA-256 of the bytes.
    var digest: String
    /// Fetched, revalidated, or used from the cache as it was.
    var origin: SourceOrigin
    /// Whether the bytes at `path` are known to match `digest` (a stored body is checked only
    /// when a job needs its pixels).
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
