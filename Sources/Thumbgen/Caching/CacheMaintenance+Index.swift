import Foundation

/// The part of `cache stats`, `prune`, `verify` and `clear` that looks after the rows of the
/// cache's database: URL records (with the blob each names), local-file rows, and recipe
/// histories (one per source). Their sizes are the bytes of their text, as record files held
/// them.
extension CacheMaintenance {
    /// One URL record or recipe history, as `prune` weighs it.
    struct IndexUnit {
        enum Row {
            case url(String)
            /// A `files` row, by path.
            case file(String)
            case recipes(source: String)
        }
        var row: Row
        var blob: String?
        var size: Int64
        var lastUse: Double
    }

    /// Every URL record, local-file row and recipe history in the database; a file row's last
    /// use counts the warm journals naming it (`journals`).
    func indexUnits(journals: JournalUse? = nil) -> [IndexUnit] {
        var units: [IndexUnit] = []
        cache.index.query("""
            SELECT url, digest, last_used,
                   length(url) + length(digest) + ifnull(length(etag), 0) + ifnull(length(last_modified), 0) + 48
            FROM urls
            """) { row in
            guard let url = row.text(0) else { return }
            units.append(IndexUnit(row: .url(url), blob: row.text(1), size: row.integer(3), lastUse: row.real(2)))
        }
        cache.index.query("SELECT path, last_used, length(path) + length(digest) + 64 FROM files") { row in
            guard let path = row.text(0) else { return }
            let lastUse = journals?.lastUse(ofFile: path, lastUsed: row.real(1)) ?? row.real(1)
            units.append(IndexUnit(row: .file(path), blob: nil, size: row.integer(2), lastUse: lastUse))
        }
        cache.index.query("""
            SELECT source, max(last_used), total(length(key) + length(recipe)) + length(source)
            FROM recipes GROUP BY source
            """) { row in
            guard let source = row.text(0) else { return }
            units.append(IndexUnit(row: .recipes(source: source), blob: nil, size: Int64(row.real(2)),
                                   lastUse: row.real(1)))
        }
        return units
    }

    /// The kind `unit` counts as.
    static func kind(of unit: IndexUnit) -> CacheLayout.Kind {
        switch unit.row {
        case .url: .urls
        case .file: .files
        case .recipes: .recipes
        }
    }

    /// Removes `unit` unless a run used it after `unit.lastUse` (it is then left alone, as a
    /// record file touched since is); true when it went.
    func remove(_ unit: IndexUnit) -> Bool {
        switch unit.row {
        case .url(let url):
            cache.index.changing("DELETE FROM urls WHERE url = ? AND last_used <= ?",
                                 [.text(url), .real(unit.lastUse)]) > 0
        case .file(let path):
            // A journal's use is not in `last_used`: the row goes if that is no later.
            cache.index.changing("DELETE FROM files WHERE path = ? AND last_used <= ?",
                                 [.text(path), .real(unit.lastUse)]) > 0
        case .recipes(let source):
            cache.index.changing("""
                DELETE FROM recipes WHERE source = ?1
                  AND (SELECT max(last_used) FROM recipes WHERE source = ?1) <= ?2
                """, [.text(source), .real(unit.lastUse)]) > 0
        }
    }

    /// Checks every URL record (a sound digest naming a blob that is present), every file row
    /// (a sound digest) and every recipe history (each key the digest of its recipe), removing
    /// what fails; counts into `result`.
    func verifyIndex(into result: inout VerifyResult) {
        var unsoundFiles: [String] = []
        cache.index.query("SELECT path, digest FROM files") { row in
            result.checked.files += 1
            guard let path = row.text(0) else { return }
            guard let digest = row.text(1), ContentDigest.isValid(digest) else { return unsoundFiles.append(path) }
        }
        for path in unsoundFiles {
            result.removed.files += cache.index.changing("DELETE FROM files WHERE path = ?", [.text(path)])
        }
        var unsound: [String] = []
        cache.index.query("SELECT url, digest FROM urls") { row in
            result.checked.urls += 1
            guard let url = row.text(0) else { return }
            guard let digest = row.text(1), ContentDigest.isValid(digest), cache.blobs.contains(digest) else {
                return unsound.append(url)
            }
        }
        for url in unsound {
            result.removed.urls += cache.index.changing("DELETE FROM urls WHERE url = ?", [.text(url)])
        }
        var sources: Set<String> = []
        var damaged: [(source: String, key: String)] = []
        cache.index.query("SELECT source, key, recipe FROM recipes") { row in
            guard let source = row.text(0), let key = row.text(1) else { return }
            sources.insert(source)
            guard let recipe = row.text(2), OutputKey(storedText: recipe)?.digest == key else {
                return damaged.append((source, key))
            }
        }
        result.checked.recipes += sources.count
        var emptied: Set<String> = []
        for (source, key) in damaged
        where cache.index.changing("DELETE FROM recipes WHERE source = ? AND key = ?", [.text(source), .text(key)]) > 0 {
            emptied.insert(source)
        }
        result.removed.recipes += emptied.count
    }

    /// Empties the database's tables; the entries removed (URL records, recipe histories, runs)
    /// and their bytes of text.
    func clearIndex() -> (entries: Int, bytes: Int64) {
        let units = indexUnits()
        var runs = 0
        cache.index.query("SELECT count(*) FROM runs") { row in runs = Int(row.integer(0)) }
        let cleared = cache.index.transaction { transaction in
            for table in ["urls", "files", "recipes", "runs", "uses", "journals", "journal_sources", "journal_entries",
                          "orphans"] {
                transaction.execute("DELETE FROM \(table)")
            }
            // The output records go too: a journal another run saves later is not trusted with them.
            _ = cache.outputs.changes.generation.raise(in: &transaction)
        }
        guard cleared else { return (0, 0) }
        return (units.count + runs, units.reduce(0) { $0 + $1.size })
    }
}
