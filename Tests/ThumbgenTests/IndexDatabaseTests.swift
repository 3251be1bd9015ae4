import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// The cache's database (`IndexDatabase`) on its own: made with its tables, shared by two
/// connections, and never a run's problem when its file is damaged, truncated, from a newer
/// thumbgen, or missing for a planner that only looks.
@Suite("Cache: the index database")
struct IndexDatabaseTests {
    /// Collects warnings, as standard error would show them.
    final class Warnings: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A URL record for `url`, as a fetch stores it.
    static func record(_ url: String, digest: Character = "a") -> URLRecord {
        URLRecord(url: url, digest: String(repeating: digest, count: 64), etag: "\"e\"", lastModified: nil,
                  storedAt: 1_000, freshFor: 60)
    }

    /// The URLs in the `urls` table of `database`.
    static func urls(_ database: IndexDatabase) -> [String] {
        var urls: [String] = []
        database.query("SELECT url FROM urls ORDER BY url") { urls.append($0.text(0) ?? "") }
        return urls
    }

    /// The tables of `database`, by name.
    static func tables(_ database: IndexDatabase) -> [String] {
        var tables: [String] = []
        database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { tables.append($0.text(0) ?? "") }
        return tables
    }

    /// `PRAGMA user_version` of `database`; -1 when it cannot be read.
    static func userVersion(_ database: IndexDatabase) -> Int64 {
        var version: Int64 = -1
        database.query("PRAGMA user_version") { version = $0.integer(0) }
        return version
    }

    /// A database at `path` with one URL record, closed again.
    static func filled(_ path: String) {
        let database = IndexDatabase(path: path, readOnly: false) { _ in }
        let uses = UseLog(index: database)
        URLIndex(index: database, uses: uses, looksOnly: false).store(record("https://e.test/a.jpg"))
    }

    @Test("A new database has its tables at the current schema, and a record stored is read back")
    func createsTables() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        let warnings = Warnings()
        let database = IndexDatabase(path: path, readOnly: false, warn: warnings.add)
        #expect(database.isOn)
        let tables = Self.tables(database)
        #expect(tables == ["files", "generations", "journal_entries", "journal_sources", "journals", "orphans", "placed",
                          "placed_folders", "placed_runs", "recipes", "runs", "urls", "uses"])
        let version = Self.userVersion(database)
        #expect(version == IndexSchema.version)
        var mode = ""
        database.query("PRAGMA journal_mode") { mode = $0.text(0) ?? "" }
        #expect(mode == "wal")

        let urls = URLIndex(index: database, uses: UseLog(index: database), looksOnly: false)
        urls.store(Self.record("https://e.test/a.jpg"))
        #expect(urls.record("https://e.test/a.jpg") == Self.record("https://e.test/a.jpg"))
        #expect(urls.record("https://e.test/b.jpg") == nil)
        urls.remove("https://e.test/a.jpg")
        #expect(urls.record("https://e.test/a.jpg") == nil)
        #expect(warnings.all.isEmpty, "\(warnings.all)")
    }

    @Test("A new database starts the files generation at a random value: a journal saved against a deleted one never matches its successor")
    func generationStartsRandom() throws {
        let folder = try TemporaryDirectory("index-db")
        let starts = try (0..<2).map { index -> Int64 in
            let database = IndexDatabase(path: folder.file("index-\(index).db").path, readOnly: false) { _ in }
            defer { database.close() }
            let files = FileIndex(index: database, uses: UseLog(index: database), looksOnly: false)
            #expect(try #require(Generation("outputs", in: database).current()) > 0)
            return try #require(files.generation.current())
        }
        #expect(starts[0] != starts[1], "\(starts)")
        #expect(starts.allSatisfy { $0 > 0 })
    }

    @Test("Two connections (two processes' worth) see each other's writes")
    func twoConnections() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        let first = IndexDatabase(path: path, readOnly: false) { _ in }
        let second = IndexDatabase(path: path, readOnly: false) { _ in }
        let urlsOne = URLIndex(index: first, uses: UseLog(index: first), looksOnly: false)
        let urlsTwo = URLIndex(index: second, uses: UseLog(index: second), looksOnly: false)
        // Interleaved writes from both, and transactions: none is lost.
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let urls = index.isMultiple(of: 2) ? urlsOne : urlsTwo
            urls.store(Self.record("https://e.test/\(index).jpg"))
        }
        #expect(Self.urls(first).count == 200)
        #expect(Self.urls(second).count == 200)
    }

    @Test("A file that is not a database is set aside and a new one started, said once")
    func garbageFile() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        try Data(repeating: 0x5a, count: 10_000).write(to: URL(fileURLWithPath: path))
        let warnings = Warnings()
        let database = IndexDatabase(path: path, readOnly: false, warn: warnings.add)
        #expect(database.isOn)
        #expect(warnings.all.count == 1 && warnings.all[0].contains("damaged"), "\(warnings.all)")
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
        URLIndex(index: database, uses: UseLog(index: database), looksOnly: false).store(Self.record("https://e.test/a.jpg"))
        #expect(Self.urls(database) == ["https://e.test/a.jpg"])
    }

    @Test("A truncated database costs its records, not the run: set aside, said once, and the next open is sound")
    func truncatedFile() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        do {
            let database = IndexDatabase(path: path, readOnly: false) { _ in }
            let urls = URLIndex(index: database, uses: UseLog(index: database), looksOnly: false)
            // Enough rows for the table to span pages past the first.
            database.transaction { transaction in
                for index in 0..<2000 {
                    let record = Self.record("https://e.test/\(index)/" + String(repeating: "x", count: 100))
                    transaction.execute("""
                        INSERT INTO urls (url, digest, stored_at, fresh_for, last_used) VALUES (?, ?, ?, ?, ?)
                        """, [.text(record.url), .text(record.digest), .real(1), .real(1), .real(1)])
                }
            }
            #expect(urls.record("https://e.test/1/" + String(repeating: "x", count: 100)) != nil)
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 3 * 4096)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size / 3))
        try handle.close()

        let warnings = Warnings()
        let database = IndexDatabase(path: path, readOnly: false, warn: warnings.add)
        let urls = URLIndex(index: database, uses: UseLog(index: database), looksOnly: false)
        var missed = 0
        for index in 0..<2000 where urls.record("https://e.test/\(index)/" + String(repeating: "x", count: 100)) == nil {
            missed += 1
        }
        #expect(missed > 0)
        // Found when opening (it is then started empty) or at the first read past the cut (the
        // run then goes on without it): either way said once, and the file set aside.
        #expect(warnings.all.count == 1, "\(warnings.all)")
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
        urls.store(Self.record("https://e.test/new.jpg"))
        #expect(warnings.all.count == 1, "\(warnings.all)")

        let nextWarnings = Warnings()
        let next = IndexDatabase(path: path, readOnly: false, warn: nextWarnings.add)
        #expect(next.isOn)
        #expect(nextWarnings.all.isEmpty, "\(nextWarnings.all)")
        #expect(Self.urls(next).allSatisfy { $0 == "https://e.test/new.jpg" })
    }

    @Test("A database from a newer thumbgen is left alone and not used")
    func newerSchema() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        do {
            let database = IndexDatabase(path: path, readOnly: false) { _ in }
            database.execute("PRAGMA user_version = \(IndexSchema.version + 1)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let warnings = Warnings()
        let database = IndexDatabase(path: path, readOnly: false, warn: warnings.add)
        #expect(!database.isOn)
        #expect(warnings.all.count == 1 && warnings.all[0].contains("newer"), "\(warnings.all)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("Read only: a missing database is empty and made by no one; a present one is read without a file beside it")
    func readOnly() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        let absent = IndexDatabase(path: path, readOnly: true) { _ in }
        #expect(!absent.isOn && Self.urls(absent).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))

        Self.filled(path)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        let database = IndexDatabase(path: path, readOnly: true) { _ in }
        #expect(Self.urls(database) == ["https://e.test/a.jpg"])
        #expect(!database.execute("DELETE FROM urls"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == names)
    }

    @Test("Uses are written in batches: a lookup writes nothing until the log is flushed")
    func usesInBatches() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        let database = IndexDatabase(path: path, readOnly: false) { _ in }
        let uses = UseLog(index: database)
        let urls = URLIndex(index: database, uses: uses, looksOnly: false)
        urls.store(Self.record("https://e.test/a.jpg"))
        database.execute("UPDATE urls SET last_used = 5")
        func lastUsed() -> Double {
            var value = 0.0
            database.query("SELECT last_used FROM urls") { value = $0.real(0) }
            return value
        }
        #expect(urls.record("https://e.test/a.jpg") != nil)
        #expect(lastUsed() == 5)
        uses.flush()
        #expect(lastUsed() > Date().timeIntervalSince1970 - 60)

        // A use recorded moments ago is not written again (a warm run over URL rows).
        let recent = Date().timeIntervalSince1970 - 30
        database.execute("UPDATE urls SET last_used = ?", [.real(recent)])
        #expect(urls.record("https://e.test/a.jpg") != nil)
        uses.flush()
        #expect(lastUsed() == recent)

        // A planner that only looks marks nothing.
        database.execute("UPDATE urls SET last_used = 5")
        let looking = URLIndex(index: database, uses: uses, looksOnly: true)
        #expect(looking.record("https://e.test/a.jpg") != nil)
        uses.flush()
        #expect(lastUsed() == 5)
    }

    @Test("A database of schema 1 is brought to the current one, its rows kept")
    func upgradesSchema() throws {
        let folder = try TemporaryDirectory("index-db")
        let path = folder.file("index.db").path
        do {
            // Schema 1 as a thumbgen of that version made it: its steps only.
            let database = IndexDatabase(path: path, readOnly: false) { _ in }
            for statement in ["DROP TRIGGER files_removed", "DROP TABLE files", "DROP TABLE generations",
                              "DROP TABLE journals", "DROP TABLE journal_sources", "DROP TABLE journal_entries",
                              "DROP TABLE orphans", "DROP TABLE uses", "DROP TABLE placed",
                              "DROP TABLE placed_folders", "DROP TABLE placed_runs"] {
                #expect(database.execute(statement), "\(statement)")
            }
            database.execute("PRAGMA user_version = 1")
            URLIndex(index: database, uses: UseLog(index: database), looksOnly: false).store(Self.record("https://e.test/a.jpg"))
        }
        let warnings = Warnings()
        let database = IndexDatabase(path: path, readOnly: false, warn: warnings.add)
        let tables = Self.tables(database)
        #expect(tables == ["files", "generations", "journal_entries", "journal_sources", "journals", "orphans", "placed",
                          "placed_folders", "placed_runs", "recipes", "runs", "urls", "uses"])
        let version = Self.userVersion(database)
        #expect(version == IndexSchema.version)
        #expect(Self.urls(database) == ["https://e.test/a.jpg"])
        #expect(warnings.all.isEmpty, "\(warnings.all)")
    }

    @Test("Reading an output record touches no file: the use goes to the database in a batch")
    func recordUsesInDatabase() throws {
        let folder = try TemporaryDirectory("index-db")
        let cache = try ThumbnailCache(directory: folder.file("cache"))
        let record = OutputRecord(sha256: String(repeating: "b", count: 64), width: 4, height: 3, format: .png, bytes: 10)
        let key = String(repeating: "c", count: 64)
        cache.outputs.store(record, key: key)
        let path = cache.layout.path(.outputs, key)
        let old = Date(timeIntervalSinceNow: -7200)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        #expect(cache.outputs.record(key) == record)
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        #expect(abs(modified.timeIntervalSince(old)) < 1, "the record file was touched")
        #expect(UseLog.lastUses(of: .outputs, in: cache.index).isEmpty)
        cache.recordUses()
        let used = try #require(UseLog.lastUses(of: .outputs, in: cache.index)[key])
        #expect(used > Date().timeIntervalSince1970 - 60)
        // `cache stats` and `prune` count that use.
        let stats = CacheMaintenance(cache: cache).stats()
        #expect((stats.newestUse?.timeIntervalSince1970 ?? 0) >= used - 1)
    }
}
