import Foundation

/// Why a cache directory cannot be used.
public struct CacheError: Error, CustomStringConvertible, Equatable {
    /// The directory and what is wrong with it.
    public var description: String
}

/// The content-addressed disk cache shared by runs, processes and machines (docs/cache.md):
/// sources by digest with a URL index and a local-file index beside them, outputs by a key
/// over everything that changes their bytes.
///
/// Every entry is one file put in place by rename, so the directory is safe to share between
/// processes running at once and to lose at any moment; damaged entries are found by their
/// digests and checksums and never served; the entry a run writes in their place replaces
/// them, and `cache verify` removes what is left.
public final class ThumbnailCache: Sendable {
    /// The cache directory.
    public let directory: URL
    let layout: CacheLayout
    let blobs: BlobStore
    let outputs: OutputIndex
    let urls: URLIndex
    let files: FileIndex
    let recipes: RecipeHistory
    /// `CACHE/index.db`: what the cache knows besides its blobs and output records.
    let index: IndexDatabase
    /// The uses of the database's records this process has not written yet.
    let uses: UseLog
    /// Whether the cache takes writes in this run.
    let health: StoreHealth
    /// The remote cache behind this one (`--remote-cache`), if any: asked on a local miss,
    /// and sent what runs render and fetch (`ThumbnailCache+Remote.swift`).
    public let remote: RemoteCache?

    /// Opens (creating it if needed) the cache at `directory`, with `remote` behind it; throws
    /// when it cannot be made or written. `warn` hears, once, of an index database found damaged
    /// (set aside and started empty) or failing during the run.
    public convenience init(directory: URL, remote: RemoteCache? = nil,
                            warn: @escaping @Sendable (String) -> Void = ThumbnailCache.warnOnStandardError)
        throws(CacheError)
    {
        let layout = CacheLayout(root: directory)
        guard layout.create() else {
            throw CacheError(description: "\(directory.path): cannot create or write the cache directory")
        }
        self.init(layout: layout, remote: remote, warn: warn)
    }

    /// Opens the cache at `directory` for looking only: nothing is created or written, reading
    /// an entry does not mark it used, and a damaged one is not dropped. Nil when there is no
    /// cache there.
    public convenience init?(lookingAt directory: URL,
                             warn: @escaping @Sendable (String) -> Void = ThumbnailCache.warnOnStandardError) {
        var layout = CacheLayout(root: directory)
        layout.looksOnly = true
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.base, isDirectory: &isFolder),
              isFolder.boolValue else { return nil }
        self.init(layout: layout, warn: warn)
    }

    private init(layout: CacheLayout, remote: RemoteCache? = nil, warn: @escaping @Sendable (String) -> Void) {
        directory = layout.root
        self.remote = remote
        let health = StoreHealth(location: layout.root.path, warn: warn)
        var layout = layout
        layout.health = health
        self.layout = layout
        self.health = health
        index = IndexDatabase(path: layout.indexPath, readOnly: layout.looksOnly, warn: warn, refused: health.refused)
        uses = UseLog(index: index)
        blobs = BlobStore(layout: layout)
        outputs = OutputIndex(layout: layout, uses: uses, changes: RecordChanges(index: index))
        urls = URLIndex(index: index, uses: uses, looksOnly: layout.looksOnly)
        files = FileIndex(index: index, uses: uses, looksOnly: layout.looksOnly)
        recipes = RecipeHistory(index: index)
        LegacyIndexImport.run(layout, into: index)
    }

    /// Writes `warning: MESSAGE` to standard error: where a cache's warnings go unless the
    /// caller takes them.
    public static let warnOnStandardError: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data("thumbgen: warning: \(TerminalText.safe(message))\n".utf8))
    }

    /// The default cache directory: `$THUMBGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/thumbgen`,
    /// else `~/.cache/thumbgen`.
    public static func defaultDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        if let dir = environment["THUMBGEN_CACHE_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir)
        }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("thumbgen")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/thumbgen")
    }

    /// Writes the uses of records this process has gathered (`UseLog`), and closes its changes
    /// of output records (`RecordChanges`): at the end of a run.
    func recordUses() {
        outputs.changes.settle()
        files.flush()
        uses.flush()
        recipes.flush()
    }

    /// Writes the cache refused in this run (a full file system): the run's summary reports them.
    public var refusedWrites: Int { health.refusals }

    /// The file the cache keeps `url`'s body in (as downloaded, or as the remote cache gave
    /// it), when it has one: `thumbgen site --fetch` reads an image's size from it.
    public func storedBody(of url: String) -> String? {
        guard let record = urls.record(url), blobs.contains(record.digest) else { return nil }
        return blobs.path(record.digest)
    }

    /// Writes the uses gathered and closes the cache's database: what a command does last, so
    /// that the database is whole in its file for the next process (a dry run reads the file
    /// alone). The cache answers no index lookup after.
    public func close() {
        recordUses()
        index.close()
    }

    /// The folder in which downloads land before they are moved into the store (the same file
    /// system, so the move is a rename).
    var temporaryFolder: URL { URL(fileURLWithPath: layout.temporaryFolder) }

    /// The cached output for `key`, if its record is sound. Its blob is not looked at here: a
    /// file under `--out` that already holds these bytes needs none, and `outputData` checks
    /// the blob when the bytes are needed.
    func output(_ key: String) -> OutputRecord? {
        outputs.record(key)
    }

    /// The bytes of a cached output, checked; nil when they are damaged or gone, so that the
    /// caller renders it again (and its store replaces the entry: nothing is deleted here).
    func outputData(_ record: OutputRecord, key: String) -> Data? {
        blobs.verifiedData(record.sha256)
    }

    /// Stores a rendered output under `key`: the bytes first, then the record that names them,
    /// so that a record never points at bytes that are not there.
    func storeOutput(_ data: Data, record: OutputRecord, key: String) {
        blobs.put(data, digest: record.sha256)
        outputs.store(record, key: key)
        remote?.upload(output: record, key: key, bytes: data) { [blobs] in blobs.verifiedData(record.sha256) }
    }

    /// Stores that the output under `key` cannot fit its row's `max_output_bytes` (`verdict`), so
    /// that the next run fails the row without a decode. Only here: a verdict is cheap to find
    /// again on another machine, and a remote record that is not an output would be a miss
    /// (rejected) to every thumbgen that reads it.
    func storeVerdict(_ verdict: OutputOverBudget, key: String) {
        outputs.storeVerdict(verdict, key: key)
    }
}
