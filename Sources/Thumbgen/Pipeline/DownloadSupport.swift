import Foundation
import Synchronization

/// What remote sources need, made on first use so that a run of local files starts no
/// transfer thread and no temporary folder: the fetcher and the folder downloads land in
/// (inside the cache when there is one, so that a body moves into the store by rename).
final class DownloadSupport: Sendable {
    private let policy: FetchPolicy
    private let cache: ThumbnailCache?
    private let offline: Bool
    private let made = Mutex<(fetcher: HTTPFetcher, folder: URL)?>(nil)

    init(policy: FetchPolicy, cache: ThumbnailCache?, offline: Bool) {
        self.policy = policy
        self.cache = cache
        self.offline = offline
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

    /// A download operation for `url` into the run's temporary folder, using the cache as a
    /// row with `maxAge` allows.
    func operation(_ url: URL, maxAge: Int) -> DownloadOperation {
        let (fetcher, folder) = parts()
        let caching = cache.map { RemoteSourceCache(cache: $0, maxAge: maxAge, offline: offline) }
        return DownloadOperation(url: url, into: folder, caching: caching, fetcher: { fetcher })
    }

    private func parts() -> (HTTPFetcher, URL) {
        made.withLock { made in
            if let made { return made }
            let parent = cache?.temporaryFolder ?? FileManager.default.temporaryDirectory
            let folder = parent.appendingPathComponent(TemporaryName.make(for: "downloads"))
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            TemporaryFiles.shared.insert(folder.path)
            let parts = (HTTPFetcher(policy: policy), folder)
            made = parts
            return parts
        }
    }
}
