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
        finish()
    }

    /// Removes the download folder (and whatever is left in it) and stops the transfer thread;
    /// the next remote source starts them again.
    func finish() {
        guard let folder = made.withLock({ made in
            defer { made = nil }
            return made?.folder
        }) else { return }
        try? FileManager.default.removeItem(at: folder)
        TemporaryFiles.shared.remove(folder.path)
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
            TemporaryFiles.shared.insert(folder.path)
            let parts = (HTTPFetcher(policy: policy), folder)
            made = parts
            return parts
        }
    }
}
