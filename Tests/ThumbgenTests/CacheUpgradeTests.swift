import Foundation
import Testing
@testable import Thumbgen

/// The cache's database seen from the command line: a cache directory of the layout before it
/// is brought in without fetching again what a record still proves, and a damaged database
/// costs one warning, never an output.
@Suite("Cache: upgrading, and a damaged database")
struct CacheUpgradeTests {
    /// The cache directory of `space` turned into the layout before the database: its URL
    /// records as files (`v1/urls/ab/SHA256-OF-URL`), a recipe history (`v1/recipes`) and a run
    /// record (`v1/runs`), as thumbgen 0.2.0 wrote them; the database removed.
    static func downgrade(_ space: Workspace) throws -> (urls: [URLRecord], keys: [OutputKey], source: Thumbgen.SourceLocation) {
        let cache = try ThumbnailCache(directory: space.cache)
        let urls = CacheFiles(root: space.cache).urls().compactMap(cache.urls.record)
        var source: Thumbgen.SourceLocation?
        cache.index.query("SELECT DISTINCT source FROM recipes") { row in
            if let text = row.text(0), text.hasPrefix("url "), let url = URL(string: String(text.dropFirst(4))) {
                source = .url(url)
            }
        }
        let history = try #require(source)
        let keys = cache.recipes.keys(for: history)
        let v1 = space.cache.appendingPathComponent("v1")
        for record in urls {
            let name = URLIndex.name(for: record.url)
            let folder = v1.appendingPathComponent("urls/\(name.prefix(2))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(URLIndex.entry(record).encoded).write(to: folder.appendingPathComponent(name))
        }
        var recipe = CacheRecord()
        recipe["source"] = RecipeHistory.identity(of: history)
        for key in keys { recipe[key.digest] = key.text }
        let name = ContentDigest.of(text: RecipeHistory.identity(of: history))
        let recipes = v1.appendingPathComponent("recipes/\(name.prefix(2))")
        try FileManager.default.createDirectory(at: recipes, withIntermediateDirectories: true)
        try Data(recipe.encoded).write(to: recipes.appendingPathComponent(name))
        var run = CacheRecord()
        for (field, value) in [("command", "render"), ("ended-at", "1000.5"), ("rows", "7"), ("hit", "1"),
                               ("miss", "6"), ("revalidated", "0"), ("failed", "0"), ("seconds", "2.5")] {
            run[field] = value
        }
        let runs = v1.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        try Data(run.encoded).write(to: runs.appendingPathComponent("0000001000.500-0000abcd"))
        // A warm journal file of that layout (its format aside: it is removed, not read).
        let journals = v1.appendingPathComponent("journals")
        try FileManager.default.createDirectory(at: journals, withIntermediateDirectories: true)
        try Data("thumbgen-journal".utf8).write(to: journals.appendingPathComponent(String(repeating: "d", count: 64)))
        for file in CacheFiles.databaseFiles {
            try? FileManager.default.removeItem(at: space.cache.appendingPathComponent(file))
        }
        return (urls, keys, history)
    }

    @Test("A cache of the layout before the database: its records are brought in, and a fresh URL is not fetched again")
    func upgradesOldLayout() async throws {
        let (space, server) = try HTTPCacheTests.serve()
        let path = "/img/q.jpg?max_age=3600"
        let first = try await HTTPCacheTests.run(space, server, [(path, 0)])
        #expect(first.status == 0, "\(first.result.stderr)")
        let old = try Self.downgrade(space)
        #expect(old.urls.count == 1 && !old.keys.isEmpty)
        try FileManager.default.removeItem(at: space.out)
        try server.resetCounts()

        let second = try await HTTPCacheTests.run(space, server, [(path, 0)])
        #expect(second.status == 0, "\(second.result.stderr)")
        #expect(!second.result.stderr.contains("warning"), "\(second.result.stderr)")
        #expect(try server.counts().total == 0, "the URL record was not brought in: the source was fetched")
        #expect(second.report?.row(2)?.cache == "hit")
        #expect(second.report?.row(2)?.status == "written")
        for folder in ["urls", "recipes", "runs", "journals"] {
            #expect(!FileManager.default.fileExists(atPath: space.cache.appendingPathComponent("v1/" + folder).path),
                    "v1/\(folder) is still there")
        }
        let cache = try ThumbnailCache(directory: space.cache)
        #expect(CacheFiles(root: space.cache).urls() == old.urls.map(\.url))
        #expect(cache.recipes.keys(for: old.source) == old.keys)
        let runs = RunLog(cache: cache).entries()
        #expect(runs.count == 2 && runs.first?.endedAt == 1000.5 && runs.first?.miss == 6, "\(runs)")
    }

    @Test("A local file's record of the layout before the database is brought in: its digest is known without hashing, a record of another stamp is not")
    func upgradesFileRecords() throws {
        let folder = try TemporaryDirectory("upgrade-files")
        let photo = try folder.write(Data("the photo's bytes".utf8), to: "photo.jpg")
        let other = try folder.write(Data("another file".utf8), to: "other.jpg")
        var info = stat()
        #expect(stat(photo.path, &info) == 0)
        let stamp = FileIndex.Stamp(info)
        let digest = ContentDigest.of(Data("the photo's bytes".utf8))
        // As thumbgen 0.2.0 wrote them: `v1/files/ab/<SHA-256 of the path>`.
        func write(path: String, stamp: String, digest: String) throws {
            var record = CacheRecord()
            record["path"] = path
            record["stamp"] = stamp
            record["digest"] = digest
            let name = ContentDigest.of(text: path)
            let records = folder.url.appendingPathComponent("cache/v1/files/\(name.prefix(2))")
            try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
            try Data(record.encoded).write(to: records.appendingPathComponent(name))
        }
        try write(path: photo.path, stamp: "\(stamp.device) \(stamp.inode) \(stamp.size) \(stamp.seconds).\(stamp.nanoseconds)",
                  digest: digest)
        try write(path: other.path, stamp: "1 2 3 4.5", digest: digest)

        let cache = try ThumbnailCache(directory: folder.file("cache"))
        #expect(cache.files.knownDigest(of: photo.path) == digest)
        #expect(cache.files.knownDigest(of: other.path) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.file("cache/v1/files").path))
        #expect(CacheFiles(root: folder.file("cache")).fileRows() == ["other.jpg", "photo.jpg"])
    }

    @Test("A damaged database: one warning, every output written, and the next run is quiet")
    func damagedDatabase() async throws {
        let (space, server) = try HTTPCacheTests.serve()
        let rows = [("/img/q.jpg?max_age=3600", 0), ("/img/p.png?max_age=3600", 0)]
        let first = try await HTTPCacheTests.run(space, server, rows)
        #expect(first.status == 0, "\(first.result.stderr)")
        try Data(repeating: 0x41, count: 8192).write(to: space.cache.appendingPathComponent("index.db"))
        for file in ["index.db-wal", "index.db-shm"] {
            try? FileManager.default.removeItem(at: space.cache.appendingPathComponent(file))
        }
        try FileManager.default.removeItem(at: space.out)

        let second = try await HTTPCacheTests.run(space, server, rows)
        #expect(second.status == 0, "\(second.result.stderr)")
        let warnings = second.result.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1 && warnings.first?.contains("index.db") == true, "\(second.result.stderr)")
        #expect(second.report?.rows.map(\.status) == ["written", "written"])
        #expect(FileManager.default.fileExists(atPath: space.cache.appendingPathComponent("index.db.damaged").path))

        let third = try await HTTPCacheTests.run(space, server, rows)
        #expect(third.status == 0, "\(third.result.stderr)")
        #expect(!third.result.stderr.contains("warning"), "\(third.result.stderr)")
        #expect(third.report?.rows.map(\.cache) == ["hit", "hit"])
    }
}
