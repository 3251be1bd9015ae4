import Foundation
import Synchronization

/// What URL sources need, made on first use so that a run of local files starts no
/// transfer thread and no temporary folder: the fetcher and the folder downloads land in
/// (inside the cache when there is one, so that a body moves into the store by rename).
///
/// The folder is locked (`TemporaryFolder`) while it exists. A run that is killed leaves it,
/// with whole source files in it; so every run starts by removing the download folders of runs
/// that are gone, and the cache's other stray temporaries: nothing else would before
/// `cache prune`, and nothing at all in the system's temporary folder (`--no-cache`).
final class DownloadWorkspace: Sendable {
    private let policy: FetchPolicy
    private let cache: ThumbnailCache?
    /// A downloads folder, and its lock with the path it is registered under.
    private typealias Folder = (folder: URL, lock: (path: String, file: LockedFile)?)
    /// The fetcher and the folder.
    private let made = Mutex<(fetcher: any SourceFetching, folder: Folder)?>(nil)
    /// What fetches instead of an `HTTPFetcher` of the run's policy, when given.
    private let fetching: (any SourceFetching)?
    /// A second folder, outside the cache, for downloads the cache's full file system refused.
    private let spare = Mutex<Folder?>(nil)

    /// Support for a run fetching with `policy` (through `cache` unless nil), which starts by
    /// sweeping the leftovers of runs that are gone.
    init(policy: FetchPolicy, cache: ThumbnailCache?, fetching: (any SourceFetching)? = nil) {
        self.policy = policy
        self.cache = cache
        self.fetching = fetching
        if let cache { TemporarySweeper.sweep(cache.layout.temporaryFolder) }
        TemporarySweeper.sweep(Self.systemTemporaryFolder, prefix: ".downloads.tg-", ownedOnly: true)
    }

    /// `$TMPDIR`, else `/tmp`: where downloads land without a cache.
    private static var systemTemporaryFolder: String {
        FileManager.default.temporaryDirectory.path
    }

    deinit {
        finish()
    }

    /// Removes the download folder (and whatever is left in it) and stops the transfer thread;
    /// the next URL source starts them again.
    func finish() {
        let folders: [Folder?] = [made.withLock { made in
            defer { made = nil }
            return made?.folder
        }, spare.withLock { spare in
            defer { spare = nil }
            return spare
        }]
        for case let (folder, lock)? in folders {
            // Removed while still locked, so that no sweeper takes it for a leftover meanwhile.
            try? FileManager.default.removeItem(at: folder)
            if let lock { TemporaryFiles.shared.remove(lock.path) }
            withExtendedLifetime(lock?.file) {}
        }
    }

    /// A download operation getting `url` by `step` into the run's temporary folder, storing
    /// what a row with `maxAge` allows under `identity` (the URL, or its `SourceKey`).
    func operation(_ url: URL, identity: String, maxAge: Int, step: RowPlan.SourceStep) -> DownloadOperation {
        let (fetcher, folder) = parts()
        let storing = cache.map { URLCachePolicy(cache: $0, maxAge: maxAge) }
        // Downloads go into the cache's own folder, so that a body is stored by a second name;
        // when that file system is full, into one outside the cache (the body is then not
        // stored), so that the row still gets its bytes.
        let spare: (@Sendable () -> URL)? = cache == nil ? nil : { @Sendable [self] in self.spareFolder() }
        return DownloadOperation(url: url, identity: identity, step: step, into: folder, spare: spare, storing: storing,
                                 fetcher: { fetcher })
    }

    /// The folder outside the cache, made on first use.
    private func spareFolder() -> URL {
        spare.withLock { spare in
            if let spare { return spare.folder }
            let made = Self.folder(in: Self.systemTemporaryFolder)
            spare = made
            return made.folder
        }
    }

    /// A new locked downloads folder in `parent`; without one, each download fails with its
    /// own "cannot write" naming the path.
    private static func folder(in parent: String) -> Folder {
        try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        let created = TemporaryFolder.create(in: parent, for: "downloads")
        let path = created?.path ?? parent + "/" + TemporaryName.locked(for: "downloads")
        if let created { TemporaryFiles.shared.insert(created.path, holding: created.lock) }
        return (URL(fileURLWithPath: path), created.map { (path: $0.path, file: $0.lock) })
    }

    private func parts() -> (any SourceFetching, URL) {
        made.withLock { made in
            if let made { return (made.fetcher, made.folder.folder) }
            let parts = (fetcher: fetching ?? HTTPFetcher(policy: policy),
                         folder: Self.folder(in: cache?.layout.temporaryFolder ?? Self.systemTemporaryFolder))
            made = parts
            return (parts.fetcher, parts.folder.folder)
        }
    }
}
