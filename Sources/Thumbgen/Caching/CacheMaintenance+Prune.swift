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
        /// The record's last use: its file's time or its row's, or a journal's (`JournalUse`).
        /// The record's own stays as listed, which `remove` checks to leave alone a record used
        /// since.
        var lastUse: Double
    }

    /// Removes what has not been used for `maxAge` seconds, then the least recently used
    /// until the entries hold at most `maxSize` bytes; also blobs no record names, once they are
    /// over an hour old, and temporary files whose writers are gone. `now` is in seconds since
    /// 1970.
    ///
    /// An output record or URL record and its blob are one unit whose last use is the
    /// record's (a run reads the record every time it uses the blob; a URL record's use is the
    /// database's `last_used`), or that of the newest warm journal naming it (`JournalUse`).
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
        for entry in layout.entries(.outputs) {
            let blob = record(entry).flatMap(Self.blob(namedBy:))
            if let blob { references[blob, default: 0] += 1 }
            units.append(Unit(record: .file(entry), kind: .outputs, blob: blob,
                              lastUse: lastUse(of: entry, kind: .outputs, journals: journals, recorded: recorded)))
            total += entry.size
        }
        for row in indexUnits(journals: journals) {
            if let blob = row.blob { references[blob, default: 0] += 1 }
            units.append(Unit(record: .row(row), kind: Self.kind(of: row), blob: row.blob, lastUse: row.lastUse))
            total += row.size
        }

        // A young orphan is most likely a blob whose record a running process is about to
        // write; an old one is left over from a run that died, or from a record pruned or
        // dropped as damaged.
        for (name, blob) in blobs where references[name] == nil && now - blob.modified > Self.grace {
            _ = remove(blob, kind: .blobs, total: &total, result: &result)
        }

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
