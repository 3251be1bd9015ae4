import Foundation

/// The record of placed files of one `--out` folder, kept in the cache's database (tables
/// `placed`, `placed_folders`, `placed_runs`), keyed by the folder's real path. A run writes
/// only the entries that changed, in one transaction; a warm run whose placed files are those
/// of a run already saved (`placed_runs`) reads and writes nothing but that one row.
public struct PlacedIndex: PlacedRecordStoring {
    private let index: IndexDatabase
    /// The `--out` folder's real path; nil when it does not exist (nothing was placed).
    private let outPath: String?

    /// The record of `outputDirectory` in `cache`.
    public init(cache: ThumbnailCache, outputDirectory: URL) {
        index = cache.index
        if let real = realpath(outputDirectory.path, nil) {
            outPath = String(cString: real)
            free(real)
        } else {
            outPath = nil
        }
    }

    /// Whether a run of `fingerprint` was saved since the record last lost or changed an entry.
    public func holds(fingerprint: UInt64) -> Bool {
        guard let outPath else { return false }
        var found = false
        index.query("SELECT 1 FROM placed_runs WHERE out_path = ? AND fingerprint = ?",
                    [.text(outPath), .integer(Int64(bitPattern: fingerprint))]) { _ in found = true }
        return found
    }

    /// Whether any run's record of the folder is kept: a saved run (`placed_runs`) or a placed
    /// file. False in a new or emptied database, and where the database does not answer.
    public func hasRecord() -> Bool {
        guard let outPath else { return false }
        var found = false
        index.query("SELECT 1 FROM placed_runs WHERE out_path = ? UNION ALL SELECT 1 FROM placed WHERE out_path = ? LIMIT 1",
                    [.text(outPath), .text(outPath)]) { _ in found = true }
        return found
    }

    /// The folder's record (empty without one, or when the database does not answer).
    public func load() -> PlacedRecord {
        guard let outPath else { return PlacedRecord() }
        var record = PlacedRecord()
        index.query("SELECT path, row, source, size, digest FROM placed WHERE out_path = ?", [.text(outPath)]) { row in
            guard let path = row.text(0) else { return }
            record.files[path] = PlacedFile(path: path, row: row.text(1) ?? "", source: row.text(2) ?? "",
                                            bytes: Int(row.integer(3)), sha256: row.text(4) ?? "")
        }
        index.query("SELECT path FROM placed_folders WHERE out_path = ?", [.text(outPath)]) { row in
            if let path = row.text(0) { record.folders.insert(path) }
        }
        return record
    }

    /// Writes `changes`, in one transaction. An entry replaced or removed forgets the runs on
    /// record (they may no longer be whole in it); `fingerprint` is noted.
    @discardableResult
    public func save(_ changes: PlacedChanges, to previous: PlacedRecord, fingerprint: UInt64) -> Bool {
        guard let outPath else { return false }
        let out = IndexDatabase.Value.text(outPath)
        return index.transaction { transaction in
            for file in changes.upserts {
                transaction.execute("""
                    INSERT OR REPLACE INTO placed (out_path, path, row, source, size, digest)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, [out, .text(file.path), .text(file.row), .text(file.source), .integer(Int64(file.bytes)),
                          .text(file.sha256)])
            }
            for path in changes.removals {
                transaction.execute("DELETE FROM placed WHERE out_path = ? AND path = ?", [out, .text(path)])
            }
            for folder in changes.foldersMade {
                transaction.execute("INSERT OR IGNORE INTO placed_folders (out_path, path) VALUES (?, ?)",
                                    [out, .text(folder)])
            }
            for folder in changes.foldersGone {
                transaction.execute("DELETE FROM placed_folders WHERE out_path = ? AND path = ?", [out, .text(folder)])
            }
            if changes.replaces { transaction.execute("DELETE FROM placed_runs WHERE out_path = ?", [out]) }
            // A few runs are enough to know (shards, a run or two back); more would only grow.
            transaction.execute("""
                DELETE FROM placed_runs WHERE out_path = ?1 AND fingerprint != ?2
                  AND (SELECT count(*) FROM placed_runs WHERE out_path = ?1) >= 32
                """, [out, .integer(Int64(bitPattern: fingerprint))])
            transaction.execute("INSERT OR IGNORE INTO placed_runs (out_path, fingerprint) VALUES (?, ?)",
                                [out, .integer(Int64(bitPattern: fingerprint))])
        }
    }
}
