import Foundation

/// Brings what a cache directory of the layout before the database kept as record files
/// (`v1/urls`, `v1/files`, `v1/recipes`, `v1/runs`) into the database, then removes those
/// folders, and the warm journals' files (`v1/journals`), which are not imported: a first run
/// after upgrading neither fetches again what a URL record still proves, nor hashes again a
/// local file whose stamp is on record, nor loses `explain`'s history or `cache stats`' runs. A record that does not decode is left out, as a
/// run would have ignored it. Run by every process that opens a cache for writing and finds
/// such a folder; importing twice (two processes at once, or one killed halfway) changes nothing.
enum LegacyIndexImport {
    /// Imports and removes the legacy folders of `layout` into `index`.
    static func run(_ layout: CacheLayout, into index: IndexDatabase) {
        let urls = layout.base + "/urls", recipes = layout.base + "/recipes", runs = layout.runsFolder
        let files = layout.base + "/files", journals = layout.base + "/journals"
        let fileManager = FileManager.default
        // Checked before the database is touched: a cache without them opens it only when used.
        guard !layout.looksOnly, [urls, files, recipes, runs, journals].contains(where: fileManager.fileExists(atPath:)),
              index.isOn else { return }
        // Warm journals were files of their own: the next warm run of each --out writes its
        // journal into the database (checking its rows the slow way once, rendering nothing).
        if fileManager.fileExists(atPath: journals) { _ = layout.removeTree(journals) }
        if fileManager.fileExists(atPath: urls), importURLs(layout, from: urls, into: index) {
            _ = layout.removeTree(urls)
        }
        if fileManager.fileExists(atPath: files), importFiles(layout, from: files, into: index) {
            _ = layout.removeTree(files)
        }
        if fileManager.fileExists(atPath: recipes), importRecipes(layout, from: recipes, into: index) {
            _ = layout.removeTree(recipes)
        }
        if fileManager.fileExists(atPath: runs), importRuns(layout, from: runs, into: index) {
            _ = layout.removeTree(runs)
        }
    }

    /// The record files under `folder` (in its two-character fan-out folders, or directly in it).
    private static func records(_ layout: CacheLayout, in folder: String, fannedOut: Bool)
        -> [(record: CacheRecord, modified: Double)]
    {
        var paths: [String] = []
        for name in layout.names(in: folder) where !name.hasPrefix(".") {
            if fannedOut {
                paths += layout.names(in: folder + "/" + name).filter { !$0.hasPrefix(".") }
                    .map { folder + "/" + name + "/" + $0 }
            } else {
                paths.append(folder + "/" + name)
            }
        }
        return paths.compactMap { path in
            layout.read(path).flatMap { read in CacheRecord(decoding: read.bytes).map { ($0, read.modified) } }
        }
    }

    private static func importURLs(_ layout: CacheLayout, from folder: String, into index: IndexDatabase) -> Bool {
        index.transaction { transaction in
            for (record, modified) in records(layout, in: folder, fannedOut: true) {
                guard let url = URLIndex.decode(record) else { continue }
                transaction.execute("""
                    INSERT OR IGNORE INTO urls (url, digest, etag, last_modified, stored_at, fresh_for, last_used)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, [.text(url.url), .text(url.digest), url.etag.map { .text($0) } ?? .null,
                          url.lastModified.map { .text($0) } ?? .null, .real(url.storedAt), .real(url.freshFor),
                          .real(modified)])
            }
        }
    }

    /// 0.2.0's local-file records (path, stamp text, digest), as `files` rows of one new
    /// generation, last used when their files were written.
    private static func importFiles(_ layout: CacheLayout, from folder: String, into index: IndexDatabase) -> Bool {
        index.transaction { transaction in
            transaction.execute("UPDATE generations SET value = value + 1 WHERE name = 'files'")
            for (record, modified) in records(layout, in: folder, fannedOut: true) {
                guard let path = record["path"], let stamp = record["stamp"].flatMap(FileIndex.Stamp.init(text:)),
                      let digest = record["digest"], ContentDigest.isValid(digest) else { continue }
                transaction.execute("""
                    INSERT OR IGNORE INTO files (path, device, inode, size, mtime_s, mtime_ns, digest, written, last_used)
                    VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT value FROM generations WHERE name = 'files'), ?)
                    """, [.text(path)] + stamp.values + [.text(digest), .real(modified)])
            }
        }
    }

    private static func importRecipes(_ layout: CacheLayout, from folder: String, into index: IndexDatabase) -> Bool {
        index.transaction { transaction in
            for (record, modified) in records(layout, in: folder, fannedOut: true) {
                guard let history = RecipeHistory.decode(record) else { continue }
                for (offset, key) in history.keys.enumerated() {
                    transaction.execute("""
                        INSERT OR IGNORE INTO recipes (source, key, recipe, noted, last_used) VALUES (?, ?, ?, ?, ?)
                        """, [.text(history.source), .text(key.digest), .text(key.text),
                              .real(modified - 1 + Double(offset) * 1e-6), .real(modified)])
                }
            }
        }
    }

    private static func importRuns(_ layout: CacheLayout, from folder: String, into index: IndexDatabase) -> Bool {
        index.transaction { transaction in
            for (record, _) in records(layout, in: folder, fannedOut: false) {
                guard let command = record["command"], let endedAt = record["ended-at"].flatMap(Double.init)
                else { continue }
                func count(_ name: String) -> Int64 { record[name].flatMap(Int64.init) ?? 0 }
                var remote: IndexDatabase.Value = .null
                if record["remote-hit"] != nil {
                    remote = .text(["hit", "miss", "rejected", "upload", "dropped", "failed"]
                        .map { "\($0)=\(count("remote-" + $0))" }.joined(separator: " "))
                }
                transaction.execute("""
                    INSERT INTO runs (ended_at, command, rows, hit, miss, revalidated, failed, seconds, remote)
                    SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
                    WHERE NOT EXISTS (SELECT 1 FROM runs WHERE ended_at = ?1 AND command = ?2)
                    """, [.real(endedAt), .text(command), .integer(count("rows")), .integer(count("hit")),
                          .integer(count("miss")), .integer(count("revalidated")), .integer(count("failed")),
                          .real(record["seconds"].flatMap(Double.init) ?? 0), remote])
            }
            transaction.execute("""
                DELETE FROM runs WHERE rowid NOT IN
                  (SELECT rowid FROM runs ORDER BY ended_at DESC, rowid DESC LIMIT ?)
                """, [.integer(Int64(RunLog.kept))])
        }
    }
}
