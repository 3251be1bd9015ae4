import Foundation

/// Looks after a cache directory: `thumbgen cache stats | prune | verify | clear` (docs/cache.md,
/// "Looking after the cache").
///
/// Safe while other processes use the same cache: it removes entries only by unlinking whole
/// files (a reader that already opened one keeps reading it), never rewrites one, and leaves
/// alone what a concurrent run may be about to name (a blob younger than an hour that no
/// record names yet, a temporary file whose process still runs). Looking at an entry is not
/// using it: no "last used" mark moves.
public struct CacheMaintenance: Sendable {
    /// The cache looked after.
    public let cache: ThumbnailCache
    var layout: CacheLayout { cache.layout }

    /// How long a blob no record names, or a temporary file, is left alone: a run puts a blob
    /// before the record that names it, and no single write takes this long.
    static let grace: Double = 3600

    /// Looks after `cache`.
    public init(cache: ThumbnailCache) {
        self.cache = cache
    }

    /// One number per kind of entry.
    public struct PerKind<Number: BinaryInteger & Sendable>: Sendable, Equatable {
        /// Source images and rendered outputs, by content.
        public var blobs: Number = 0
        /// Output records.
        public var outputs: Number = 0
        /// URL records.
        public var urls: Number = 0
        /// Local-file rows (`files`).
        public var files: Number = 0
        /// Recipe histories (the keys recently stored per source).
        public var recipes: Number = 0

        /// The sum over the kinds.
        public var total: Number { blobs + outputs + urls + files + recipes }

        subscript(kind: CacheLayout.Kind) -> Number {
            get {
                switch kind {
                case .blobs: blobs
                case .outputs: outputs
                case .urls: urls
                case .files: files
                case .recipes: recipes
                }
            }
            set {
                switch kind {
                case .blobs: blobs = newValue
                case .outputs: outputs = newValue
                case .urls: urls = newValue
                case .files: files = newValue
                case .recipes: recipes = newValue
                }
            }
        }
    }

    /// What the cache holds, and how recent runs used it.
    public struct Stats: Sendable, Equatable {
        /// The cache directory.
        public var directory: URL
        /// Entries per kind.
        public var entries = PerKind<Int>()
        /// Bytes per kind (apparent sizes); `bytes.total` is what `prune --max-size` limits.
        public var bytes = PerKind<Int64>()
        /// The least and most recent "last used" marks over every entry (nil when empty).
        public var oldestUse: Date?, newestUse: Date?
        /// The runs on record, oldest first.
        public var runs: [RunLog.Entry] = []

        init(directory: URL) {
            self.directory = directory
        }
    }

    /// Counts entries and bytes per kind, and reads the run log.
    public func stats() -> Stats {
        var stats = Stats(directory: cache.directory)
        let journals = JournalUse(database: cache.index)
        func count(_ kind: CacheLayout.Kind, size: Int64, lastUse: Double) {
            stats.entries[kind] += 1
            stats.bytes[kind] += size
            let used = Date(timeIntervalSince1970: lastUse)
            stats.oldestUse = min(stats.oldestUse ?? used, used)
            stats.newestUse = max(stats.newestUse ?? used, used)
        }
        let recorded = recordedUses()
        for kind in CacheLayout.Kind.inFiles {
            for entry in layout.entries(kind) {
                // A record the database knows no use of counts as used now, as `prune` takes it.
                let used = lastUse(of: entry, kind: kind, journals: journals, recorded: recorded)
                count(kind, size: entry.size, lastUse: used ?? Date().timeIntervalSince1970)
            }
        }
        for unit in indexUnits(journals: journals) {
            count(Self.kind(of: unit), size: unit.size, lastUse: unit.lastUse)
        }
        stats.runs = RunLog(cache: cache).entries()
        return stats
    }

    /// The uses of output records the database holds (`UseLog`), by kind and name.
    func recordedUses() -> [CacheLayout.Kind: [String: Double]] {
        [.outputs: UseLog.lastUses(of: .outputs, in: cache.index)]
    }

    /// The last use of a record file as the database knows it: the later of its own (`uses`,
    /// noted when it was written and when read) and that of the newest warm journal naming it
    /// (`JournalUse`); nil when the database knows none (a record written by a thumbgen before
    /// uses were noted on writing, or whose uses were lost with a damaged database).
    func lastUse(of entry: CacheLayout.Entry, kind: CacheLayout.Kind, journals: JournalUse,
                 recorded: [CacheLayout.Kind: [String: Double]]) -> Double? {
        let known = [journals.lastUse(ofOutput: entry.name), recorded[kind]?[entry.name]].compactMap { $0 }
        return known.max()
    }

    /// The record stored at `entry`, read without marking it used; nil when it is unreadable
    /// or damaged.
    func record(_ entry: CacheLayout.Entry) -> CacheRecord? {
        layout.read(entry.path).flatMap { CacheRecord(decoding: $0.bytes) }
    }

    /// The blob an output record names (`sha256`).
    static func blob(namedBy record: CacheRecord) -> String? {
        OutputIndex.decode(record)?.sha256
    }
}

extension RunLog.Entry {
    /// The share of cached rows served from the cache: (hit + revalidated) over hit, miss and
    /// revalidated; nil for a run in which no row reached the cache.
    public var hitRate: Double? {
        let counted = hit + miss + revalidated
        return counted > 0 ? Double(hit + revalidated) / Double(counted) : nil
    }
}
