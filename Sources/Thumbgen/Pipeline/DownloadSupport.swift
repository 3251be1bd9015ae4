import Foundation
import Synchronization

/// What remote sources need, made on first use so that a run of local files starts no
/// transfer thread and no temporary folder: the fetcher and the folder downloads land in.
final class DownloadSupport: Sendable {
    private let policy: FetchPolicy
    private let made = Mutex<(fetcher: HTTPFetcher, folder: URL)?>(nil)

    init(policy: FetchPolicy) {
        self.policy = policy
    }

    deinit {
        if let folder = made.withLock({ $0?.folder }) {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// A download operation for `url` into the run's temporary folder.
    func operation(_ url: URL) -> DownloadOperation {
        let (fetcher, folder) = parts()
        return DownloadOperation(url: url, into: folder, fetcher: { fetcher })
    }

    private func parts() -> (HTTPFetcher, URL) {
        made.withLock { made in
            if let made { return made }
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("thumbgen-\(getpid())-\(UUID().uuidString.prefix(8))")
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let parts = (HTTPFetcher(policy: policy), folder)
            made = parts
            return parts
        }
    }
}
