import Foundation

/// One record per run that used the cache, kept in the cache itself, so that `thumbgen cache
/// stats` can show the hit rates of recent runs whichever process or machine made them.
///
/// Each run is its own file (`v1/runs/SECONDS-RANDOM`), written by rename like every entry;
/// only the newest `kept` are kept.
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
    let layout: CacheLayout

    /// The run log of `cache`.
    public init(cache: ThumbnailCache) {
        layout = cache.layout
    }

    /// Adds a run, and drops the oldest beyond `kept`.
    public func append(_ entry: Entry) {
        var record = CacheRecord()
        record["command"] = entry.command
        record["ended-at"] = String(entry.endedAt)
        record["rows"] = String(entry.rows)
        record["hit"] = String(entry.hit)
        record["miss"] = String(entry.miss)
        record["revalidated"] = String(entry.revalidated)
        record["failed"] = String(entry.failed)
        record["seconds"] = String(entry.seconds)
        if let remote = entry.remote {
            for (name, value) in Self.remoteFields(remote) { record["remote-" + name] = String(value) }
        }
        let name = String(format: "%013.3f-%08x", entry.endedAt, UInt32.random(in: 0...UInt32.max))
        layout.write(record.encoded, to: layout.runsFolder + "/" + name)
        let names = fileNames()
        for old in names.dropLast(Self.kept) { layout.remove(layout.runsFolder + "/" + old) }
    }

    /// The runs on record, oldest first.
    public func entries() -> [Entry] {
        fileNames().compactMap { name in
            guard let (bytes, _) = layout.read(layout.runsFolder + "/" + name),
                  let r = CacheRecord(decoding: bytes),
                  let command = r["command"], let endedAt = r["ended-at"].flatMap(Double.init),
                  let rows = r["rows"].flatMap(Int.init), let hit = r["hit"].flatMap(Int.init),
                  let miss = r["miss"].flatMap(Int.init),
                  let revalidated = r["revalidated"].flatMap(Int.init),
                  let failed = r["failed"].flatMap(Int.init),
                  let seconds = r["seconds"].flatMap(Double.init) else { return nil }
            return Entry(command: command, endedAt: endedAt, rows: rows, hit: hit, miss: miss,
                         revalidated: revalidated, failed: failed, seconds: seconds, remote: Self.remote(in: r))
        }
    }

    /// The remote counts a run record keeps, by field name (after `remote-`).
    private static func remoteFields(_ counts: RemoteCacheCounts) -> [(String, Int)] {
        [("hit", counts.hit), ("miss", counts.miss), ("rejected", counts.rejected),
         ("upload", counts.upload), ("dropped", counts.dropped), ("failed", counts.failed)]
    }

    /// The remote counts of a run record; nil for a run without a remote (or written before
    /// thumbgen had one).
    private static func remote(in record: CacheRecord) -> RemoteCacheCounts? {
        guard record["remote-hit"] != nil else { return nil }
        func count(_ name: String) -> Int { record["remote-" + name].flatMap(Int.init) ?? 0 }
        var counts = RemoteCacheCounts()
        counts.hit = count("hit")
        counts.miss = count("miss")
        counts.rejected = count("rejected")
        counts.upload = count("upload")
        counts.dropped = count("dropped")
        counts.failed = count("failed")
        return counts
    }

    private func fileNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: layout.runsFolder)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
    }
}
