import Foundation

/// Where things live inside one cache directory, and the few file operations the cache is
/// built from: read a small file whole, put a file in place by rename, remove.
///
///     ROOT/v1/blobs/ab/abcd…   content-addressed bytes (sources and outputs), named by SHA-256
///     ROOT/v1/outputs/ab/…     output records, named by output key
///     ROOT/v1/tmp/             files being written, renamed into place when whole
///     ROOT/index.db            everything else: URL and local-file rows, recipe histories,
///                              runs, uses, warm journals (`IndexDatabase`, `IndexSchema`)
///
/// One file per blob or output record, as Bazel's disk cache and git's object store do it: every write is a
/// temporary file and a rename, so readers see whole entries or none, processes on one machine
/// or several (a shared volume) need no lock to read or write entries, and a crash leaves at
/// worst a stray temporary file, which its own advisory lock (`LockedFile`) lets the next run
/// tell from a live one. The two-hex-digit fan-out keeps folders small.
struct CacheLayout: Sendable {
    /// The kinds of entry, one folder each.
    enum Kind: String, CaseIterable, Sendable {
        case blobs, outputs, urls, files, recipes

        /// The kinds kept as files under `ROOT/v1`; URL and local-file records and recipe
        /// histories are rows of the database (`IndexDatabase`).
        static let inFiles: [Kind] = [.blobs, .outputs]
    }

    /// The cache directory as given.
    let root: URL
    /// `ROOT/v1`: the layout version, so that a later layout can live beside this one.
    let base: String

    /// Whether this layout only looks (`--dry-run`, `explain`): reading an entry does not mark
    /// it used, a damaged entry is reported but not dropped, and nothing is written.
    var looksOnly = false
    /// Hears of every write the file system refuses (`ThumbnailCache` sets it).
    var health: StoreHealth?

    init(root: URL) {
        self.root = root
        self.base = root.path + "/v1"
    }

    /// The folder of one kind.
    func folder(_ kind: Kind) -> String { base + "/" + kind.rawValue }
    /// Where files are written before they are renamed into place.
    var temporaryFolder: String { base + "/tmp" }
    /// Where run records went before the database (`LegacyIndexImport`).
    var runsFolder: String { base + "/runs" }
    /// `ROOT/index.db`: the cache's database (`IndexDatabase`).
    var indexPath: String { root.path + "/index.db" }

    /// The path of the entry `name` (64 hex digits) of `kind`.
    func path(_ kind: Kind, _ name: String) -> String {
        base + "/" + kind.rawValue + "/" + name.prefix(2) + "/" + name
    }

    /// Creates the folders; false when the directory cannot be made or written.
    func create() -> Bool {
        let fm = FileManager.default
        for folder in Kind.inFiles.map(folder) + [temporaryFolder] {
            guard (try? fm.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
            else { return false }
        }
        return access(temporaryFolder, W_OK) == 0 && access(base, W_OK) == 0
    }

    /// The whole content of a small file and its modification time, or nil when it is missing
    /// or unreadable. Reads only: nothing is marked used (uses are the database's, `UseLog`).
    func read(_ path: String) -> (bytes: [UInt8], modified: Double)? {
        readStamped(path).map { ($0.bytes, $0.modified) }
    }

    /// `read`, with the file's stamp: what the warm journal keeps to know, by one `stat`, that
    /// the entry is still the one read.
    func readStamped(_ path: String) -> (bytes: [UInt8], modified: Double, stamp: FileStamp)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = DescriptorIO.readFully(fd, into: UnsafeMutableRawBufferPointer(buffer))
        }
        guard bytes.count == size else { return nil }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return (bytes, modified, FileStamp(info))
    }

    /// Puts `bytes` at `path` whole, by a temporary file and a rename. The temporary is locked
    /// and registered while it exists: a concurrent `cache prune` or run leaves it alone, and an
    /// interrupted run removes it.
    @discardableResult
    func write<Bytes: DataProtocol>(_ bytes: Bytes, to path: String) -> Bool {
        guard !looksOnly else { return false }
        guard let temporary = TemporaryFile(in: temporaryFolder, for: "entry", registry: .shared) else {
            // errno 0: the process is exiting, and nothing was refused.
            if errno != 0 { health?.refused(String(cString: strerror(errno))) }
            return false
        }
        let contiguous = Data(bytes)
        guard contiguous.withUnsafeBytes(temporary.write) else {
            health?.refused(String(cString: strerror(errno)))
            temporary.discard()
            return false
        }
        guard temporary.place({ place($0, at: path) }) else {
            temporary.discard()
            return false
        }
        return true
    }

    /// Renames the file at `source` (in this cache's file system) to `path`, making the fan-out
    /// folder if it is missing.
    func place(_ source: String, at path: String) -> Bool {
        if rename(source, path) == 0 { return true }
        guard errno == ENOENT else { return false }
        let folder = (path as NSString).deletingLastPathComponent
        mkdir(folder, 0o777)
        return rename(source, path) == 0
    }

    /// Removes the entry at `path` (a damaged or pruned one).
    func remove(_ path: String) {
        guard !looksOnly else { return }
        unlink(path)
    }
}
