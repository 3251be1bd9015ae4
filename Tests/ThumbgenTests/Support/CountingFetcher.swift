import Foundation
import Synchronization
@testable import Thumbgen

/// A fetcher double for pipelines run in process: it answers every URL with the body it was
/// given for the URL's last path component, fresh for an hour (a `404` for any other), counts the requests and the
/// folders their bodies went to, and can refuse to write under one folder as a full file
/// system does.
final class CountingFetcher: SourceFetching {
    /// One request: the URL asked for, and the folder its body was to go to.
    struct Request: Sendable, Equatable {
        var url: String
        var folder: String
    }

    private let bodies: [String: Data]
    private let fullUnder: String?
    private let log = Mutex<[Request]>([])

    /// A fetcher serving `bodies` by file name; writes into any folder under `fullUnder` fail
    /// with "No space left on device".
    init(bodies: [String: Data], fullUnder: String? = nil) {
        self.bodies = bodies
        self.fullUnder = fullUnder
    }

    /// The requests so far, in order.
    var requests: [Request] { log.withLock { $0 } }

    func start(_ url: URL, to path: String, priority: Int, order: Int, headers: [String], login: SourceLogin?,
               completion: @escaping @Sendable (Result<FetchResponse, FetchFailure>) -> Void) -> @Sendable () -> Void {
        let folder = (path as NSString).deletingLastPathComponent
        log.withLock { $0.append(Request(url: url.absoluteString, folder: folder)) }
        let outcome: Result<FetchResponse, FetchFailure>
        if let fullUnder, folder.hasPrefix(fullUnder) {
            outcome = .failure(FetchFailure(error: .localWrite(path: path, reason: "No space left on device", isFull: true),
                                            attempts: 1, status: 0))
        } else if let body = bodies[url.lastPathComponent], FileManager.default.createFile(atPath: path, contents: body) {
            outcome = .success(FetchResponse(status: 200, bytes: Int64(body.count), attempts: 1,
                                             cacheControl: "max-age=3600", sha256: ContentDigest.of(body)))
        } else {
            outcome = .failure(FetchFailure(error: .httpStatus(404), attempts: 1, status: 404))
        }
        DispatchQueue.global().async { completion(outcome) }
        return {}
    }
}
