import Foundation

extension CacheMaintenance {
    /// What `prune` removed.
    public struct PruneResult: Sendable, Equatable {
        /// Entries removed, per kind.
        public var removed = PerKind<Int>()
        /// Temporary files and download folders removed.
        public var temporary = 0
        /// Bytes freed, entries and temporary files together.
        public var freed: Int64 = 0
        /// Bytes the entries of every kind hold afterwards.
        public var remaining: Int64 = 0
    }

    /// A record, and the blob it names: they are used together, so they go together. A blob
    /// that several records name goes with the last of them.
    private struct Unit {
        /// A record file, or rows of the database.
        enum Record {
            case file(CacheLayout.Entry)
            case row(IndexUnit)
        }
        var record: Record
        var kind: CacheLayout.Kind
        var blob: String?
        /// The record's last use: its row's, or a journal's (`JournalUse`).
        /// The record's own stays as listed, which `remove` checks to leave alone a record used
        /// since.
        var lastUse: Double
    }

    /// Removes what has not been used for `maxAge` seconds, then the least recently used
    /// until the entries hold at most `maxSize` bytes; also blobs no record names that an
    /// earlier prune, over an hour before, found unnamed too (`orphans`), and temporary files
    /// whose writers are gone. `now` is in seconds since 1970. No file's modification time
    /// decides what goes: last uses are the database's.
    ///
    /// An output record or URL record and its blob are one unit whose last use is the
    /// record's (its `uses` row, noted when it was written and when a run read it; a URL
    /// record's `last_used`), or that of the newest warm journal naming it (`JournalUse`). A
    /// record the database knows no use of is taken as used now, and noted so.
    /// Local-file rows and recipe histories are units of their own (losing one costs a re-hash,
    /// or `explain` its "what changed"), so that `maxSize` can always be met. A blob that a kept
    /// record names is kept.
    public func prune(maxSize: Int64?, maxAge: Double?,
                      now: Double = Date().timeIntervalSince1970) -> PruneResult {
        var result = PruneResult()
        sweepTemporary(now: now, into: &result)

        var blobs: [String: CacheLayout.Entry] = [:]
        var total: Int64 = 0
        for blob in layout.entries(.blobs) {
            blobs[blob.name] = blob
            total += blob.size
        }
        var units: [Unit] = []
        var references: [String: Int] = [:]
        let journals = JournalUse(database: cache.index)
        let recorded = recordedUses()
        var unknown: [String] = []
        for entry in layout.entries(.outputs) {
            let blob = record(entry).flatMap(Self.blob(namedBy:))
            if let blob { references[blob, default: 0] += 1 }
            let used = lastUse(of: entry, kind: .outputs, journals: journals, recorded: recorded)
            if used == nil { unknown.append(entry.name) }
            units.append(Unit(record: .file(entry), kind: .outputs, blob: blob, lastUse: used ?? now))
            total += entry.size
        }
        noteFirstSeen(unknown, now: now)
        for row in indexUnits(journals: journals) {
            if let blob = row.blob { references[blob, default: 0] += 1 }
            units.append(Unit(record: .row(row), kind: Self.kind(of: row), blob: row.blob, lastUse: row.lastUse))
            total += row.size
        }

        removeOrphans(blobs.filter { references[$0.key] == nil }, now: now, total: &total, result: &result)

        units.sort { $0.lastUse < $1.lastUse }
        var removedFiles: [(kind: CacheLayout.Kind, name: String)] = []
        defer { forgetUses(of: removedFiles) }
        for unit in units {
            let expired = maxAge.map { now - unit.lastUse > $0 } ?? false
            let tooLarge = maxSize.map { total > $0 } ?? false
            // Oldest first: once a unit is neither expired nor needed for the size, no later one is.
            guard expired || tooLarge else { break }
            let removed: Bool
            switch unit.record {
            case .file(let entry):
                removed = remove(entry, kind: unit.kind, total: &total, result: &result)
                if removed { removedFiles.append((unit.kind, entry.name)) }
            case .row(let row):
                removed = remove(row)
                if removed {
                    result.removed[unit.kind] += 1
                    result.freed += row.size
                    total -= row.size
                }
            }
            guard removed, let digest = unit.blob else { continue }
            references[digest, default: 1] -= 1
            if references[digest] == 0, let blob = blobs[digest] {
                _ = remove(blob, kind: .blobs, total: &total, result: &result)
            }
        }
        result.remaining = total
        cache.outputs.changes.settle()
        return result
    }

    /// Notes output records the database knew no use of (`lastUse` nil) as used at `now`: taken
    /// as used now by this prune, they age from here on like any other.
    private func noteFirstSeen(_ keys: [String], now: Double) {
        guard !keys.isEmpty else { return }
        cache.index.transaction { transaction in
            for key in keys {
                transaction.execute("INSERT OR IGNORE INTO uses (kind, key, last_used) VALUES ('outputs', ?, ?)",
                                    [.text(key), .real(now)])
            }
        }
    }

    /// Removes the blobs no record names (`orphans`) that an earlier prune, at least `grace`
    /// ago, found unnamed too, and notes the others as found now. A new orphan is most likely
    /// a blob whose record a running process is about to write; one still unnamed an hour later
    /// is left over from a run that died, or from a record dropped as damaged.
    private func removeOrphans(_ orphans: [String: CacheLayout.Entry], now: Double,
                               total: inout Int64, result: inout PruneResult) {
        var firstSeen: [String: Double] = [:]
        cache.index.query("SELECT digest, first_seen FROM orphans") { row in
            if let digest = row.text(0) { firstSeen[digest] = row.real(1) }
        }
        var kept: [(String, Double)] = []
        for (name, blob) in orphans.sorted(by: { $0.key < $1.key }) {
            if let seen = firstSeen[name], now - seen > Self.grace {
                if remove(blob, kind: .blobs, total: &total, result: &result) { continue }
            }
            kept.append((name, firstSeen[name] ?? now))
        }
        guard !(firstSeen.isEmpty && kept.isEmpty) else { return }
        cache.index.transaction { transaction in
            transaction.execute("DELETE FROM orphans")
            for (name, seen) in kept {
                transaction.execute("INSERT INTO orphans (digest, first_seen) VALUES (?, ?)", [.text(name), .real(seen)])
            }
        }
    }

    /// Drops the database's uses of record files that are gone, in one transaction.
    private func forgetUses(of removed: [(kind: CacheLayout.Kind, name: String)]) {
        guard !removed.isEmpty else { return }
        cache.index.transaction { transaction in
            for (kind, name) in removed {
                transaction.execute("DELETE FROM uses WHERE kind = ? AND key = ?", [.text(kind.rawValue), .text(name)])
            }
        }
    }

    /// Removes one entry and counts it; false when it was left alone because a run is using it.
    private func remove(_ entry: CacheLayout.Entry, kind: CacheLayout.Kind,
                        total: inout Int64, result: inout PruneResult) -> Bool {
        if kind == .outputs { cache.outputs.changes.willChange() }
        switch layout.remove(entry) {
        case .removed:
            result.removed[kind] += 1
            result.freed += entry.size
            total -= entry.size
            return true
        case .vanished:
            total -= entry.size
            return true
        case .inUse:
            return false
        }
    }

    /// Removes temporary files and download folders left by runs that are gone: by their locks,
    /// as `TemporarySweeper` judges them (a live run's are kept however old:
    /// a long run keeps one download folder from its first URL row to its end); and anything
    /// else in the temporary folder once nothing in it has changed for an hour.
    private func sweepTemporary(now: Double, into result: inout PruneResult) {
        let swept = TemporarySweeper.sweep(layout.temporaryFolder, undecidedAfter: Self.grace, now: now)
        result.temporary += swept.count
        result.freed += swept.bytes
    }
}
