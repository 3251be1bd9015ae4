import Foundation
import Synchronization

/// Fetches one remote source into a temporary file for every job attached to its
/// `SourceTask`; the decode that follows reads the file.
final class DownloadOperation: AsyncOperation, @unchecked Sendable {
    let url: URL
    private let fetcher: @Sendable () -> HTTPFetcher
    private let folder: URL
    private let state = Mutex<(outcome: Result<Downloaded, FetchFailure>?, download: HTTPFetcher.Download?,
                               started: ContinuousClock.Instant?)>((nil, nil, nil))
    /// Whether any job still needs the source; checked before the transfer starts.
    var isWanted: @Sendable () -> Bool = { true }
    /// The first row's number: transfers waiting for a connection start in manifest order.
    var order = 0

    /// The downloaded file, or why there is none; nil before the operation has run.
    var result: Result<Downloaded, FetchFailure>? { state.withLock { $0.outcome } }
    /// When the transfer began.
    var started: ContinuousClock.Instant? { state.withLock { $0.started } }

    init(url: URL, into folder: URL, fetcher: @escaping @Sendable () -> HTTPFetcher) {
        self.url = url
        self.folder = folder
        self.fetcher = fetcher
    }

    override func execute() {
        guard isWanted() else {
            state.withLock { $0.outcome = .failure(FetchFailure(error: .cancelled, attempts: 0, status: 0)) }
            return finish()
        }
        let file = DownloadedFile(path: folder.appendingPathComponent(UUID().uuidString).path)
        state.withLock { $0.started = .now }
        let download = fetcher().fetch(url, to: file.path, priority: queuePriority.rawValue,
                                       order: order) { [self] result in
            // On failure `file` goes away here, and with it any partial body.
            state.withLock { $0.outcome = result.map { Downloaded(file: file, response: $0) } }
            finish()
        }
        state.withLock { $0.download = download }
    }

    /// Aborts the transfer at once (no job needs the source any more).
    func abandon() {
        state.withLock { $0.download }?.cancel()
    }
}

/// A source on disk and how its transfer went.
struct Downloaded: Sendable {
    /// The body, in a temporary file.
    let file: DownloadedFile
    /// Status, bytes, attempts and headers.
    let response: FetchResponse
}

/// A downloaded source's temporary file, deleted when the last image reading it is gone.
final class DownloadedFile: Sendable {
    let path: String

    init(path: String) {
        self.path = path
    }

    deinit {
        unlink(path)
    }
}
