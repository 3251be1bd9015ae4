import Foundation

/// One record per run that used the cache, kept in the cache itself, so that `thumbgen cache
/// stats` can show the hit rates of recent runs whichever process or machine made them.
///
/// Each run is a row of the database's `runs` table; only the newest `kept` are kept.
public struct RunLog: Sendable {
    /// One run.
    public struct Entry: Sendable, Equatable {
        /// `render` or `warm`.
        public var command: String
        /// When it ended (seconds since 1970).
        public var endedAt: Double
        /// Rows read.
        public var rows: Int
        /// Rows whose output came from the cache without asking a server.
        public var hit: Int
        /// Rows rendered in the run.
        public var miss: Int
        /// Rows served from the cache after a `304`.
        public var revalidated: Int
        /// Rows that failed.
        public var failed: Int
        /// Wall time in seconds.
        public var seconds: Double
        /// What the run did with a remote cache; nil when it had none.
        public var remote: RemoteCacheCounts? = nil
    }

    /// Runs kept.
    public static let kept = 50
    let index: IndexDatabase

    /// The run log of `cache`.
    public init(cache: ThumbnailCache) {
        index = cache.index
    }

    /// Adds a run, and drops the oldest beyond `kept`.
    public func append(_ entry: Entry) {
        index.transaction { transaction in
            transaction.execute("""
                INSERT INTO runs (ended_at, command, rows, hit, miss, revalidated, failed, seconds, remote)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.real(entry.endedAt), .text(entry.command), .integer(Int64(entry.rows)),
                      .integer(Int64(entry.hit)), .integer(Int64(entry.miss)),
                      .integer(Int64(entry.revalidated)), .integer(Int64(entry.failed)),
                      .real(entry.seconds), entry.remote.map { .text(Self.text($0)) } ?? .null])
            transaction.execute("""
                DELETE FROM runs WHERE rowid NOT IN
                  (SELECT rowid FROM runs ORDER BY ended_at DESC, rowid DESC LIMIT ?)
                """, [.integer(Int64(Self.kept))])
        }
    }

    /// The runs on record, oldest first.
    public func entries() -> [Entry] {
        var entries: [Entry] = []
        index.query("""
            SELECT command, ended_at, rows, hit, miss, revalidated, failed, seconds, remote
            FROM runs ORDER BY ended_at, rowid
            """) { row in
            entries.append(Entry(command: row.text(0) ?? "", endedAt: row.real(1), rows: Int(row.integer(2)),
                                 hit: Int(row.integer(3)), miss: Int(row.integer(4)),
                                 revalidated: Int(row.integer(5)), failed: Int(row.integer(6)),
                                 seconds: row.real(7), remote: row.text(8).map(Self.counts)))
        }
        return entries
    }

    /// The remote counts as the `remote` column keeps them: `hit=1 miss=2 ...`.
    static func text(_ counts: RemoteCacheCounts) -> String {
        [("hit", counts.hit), ("miss", counts.miss), ("rejected", counts.rejected),
         ("upload", counts.upload), ("dropped", counts.dropped), ("failed", counts.failed)]
            .map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// The counts `text` wrote (a name it does not know, or a bad number, counts 0).
    static func counts(_ text: String) -> RemoteCacheCounts {
        var values: [Substring: Int] = [:]
        for pair in text.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[parts[0]] = Int(parts[1]) }
        }
        var counts = RemoteCacheCounts()
        counts.hit = values["hit"] ?? 0
        counts.miss = values["miss"] ?? 0
        counts.rejected = values["rejected"] ?? 0
        counts.upload = values["upload"] ?? 0
        counts.dropped = values["dropped"] ?? 0
        counts.failed = values["failed"] ?? 0
        return counts
    }
}
