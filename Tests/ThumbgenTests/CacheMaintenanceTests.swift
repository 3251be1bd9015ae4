import Foundation
import Testing
@testable import Thumbgen

/// `thumbgen cache stats | prune | verify | clear` over a cache that thumbgen itself filled:
/// counts match what a run stored, prune goes least recently used first and never strands a
/// record, verify drops exactly the damaged entries, clear leaves a cache the next run fills.
@Suite("Cache maintenance: stats, prune, verify, clear")
struct CacheMaintenanceTests {
    /// `cache stats --json` as its documented keys name it.
    struct StatsJSON: Decodable {
        struct Kinds: Decodable, Equatable {
            var blobs: Int, outputs: Int, urls: Int, files: Int, recipes: Int
            var total: Int?
        }
        struct Run: Decodable {
            var command: String, ended_at: String
            var rows: Int, hit: Int, miss: Int, revalidated: Int, failed: Int
            var seconds: Double
            var hit_rate: Double?
        }
        var directory: String
        var entries: Kinds
        var bytes: Kinds
        var oldest_use: String?, newest_use: String?
        var runs: [Run]
    }

    static let manifest = CSV.manifest(
        ["src", "out", "size"],
        [["a.png", "a.jpg", "90"], ["a.png", "a-small.webp", "40"], ["b.jpg", "b.png", "64x64"]])

    /// Two sources, dated back so that their local-file stamps are recorded, after one run:
    /// three outputs (three blobs), two file rows.
    static func filledWorkspace() async throws -> (Workspace, Report) {
        let space = try Workspace("maint")
        try space.fixture(.quadrants(width: 300, height: 200), "a.png")
        try space.fixture(.quadrants(width: 160, height: 240), "b.jpg", as: .jpeg)
        for name in ["a.png", "b.jpg"] { try setModified(space.folder.file(name), secondsAgo: 60) }
        let run = try await space.run(manifest: manifest)
        #expect(run.status == 0, "\(run.result.stderr)")
        return (space, try #require(run.report))
    }

    /// Runs `thumbgen cache ARGUMENTS --cache-dir CACHE`.
    static func cache(_ space: Workspace, _ arguments: [String],
                      sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> CLIResult {
        try await CLIRunner.run(["cache"] + arguments + ["--cache-dir", space.cache.path],
                                cacheDirectory: space.cache, sourceLocation: sourceLocation)
    }

    static func stats(_ space: Workspace) async throws -> StatsJSON {
        let result = try await cache(space, ["stats", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(StatsJSON.self, from: Data(result.stdout.utf8))
    }

    /// Makes the output record at `record` last used `secondsAgo` (its `uses` row): its file's
    /// time decides nothing.
    static func setUse(_ space: Workspace, record: URL, secondsAgo: Double) throws {
        try CacheFiles(root: space.cache).execute("""
            INSERT INTO uses (kind, key, last_used) VALUES ('outputs', ?, ?)
            ON CONFLICT (kind, key) DO UPDATE SET last_used = excluded.last_used
            """, [.text(record.lastPathComponent), .real(Date().timeIntervalSince1970 - secondsAgo)])
    }

    static func setModified(_ url: URL, secondsAgo: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)],
                                              ofItemAtPath: url.path)
    }

    static func size(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// The output record naming the blob `sha256`.
    static func outputRecord(_ space: Workspace, sha256: String) throws -> URL {
        try #require(CacheFiles(root: space.cache).entries("outputs").first {
            (try? String(contentsOf: $0, encoding: .utf8))?.contains("sha256\t\(sha256)\n") == true
        })
    }

    /// Sets what the database says of the local file named `name`'s row: `column = value`.
    static func setFileRow(_ space: Workspace, _ name: String, _ column: String, _ value: IndexDatabase.Value) throws {
        try CacheFiles(root: space.cache).execute("UPDATE files SET \(column) = ? WHERE path LIKE ?",
                                                  [value, .text("%/" + name)])
    }

    /// The three rows' output records and blobs, in manifest order.
    static func units(_ space: Workspace, _ report: Report) throws -> [(record: URL, blob: URL)] {
        try (2...4).map { line in
            let sha = try #require(report.row(line)?.sha256)
            return (try outputRecord(space, sha256: sha), CacheFiles(root: space.cache).blob(sha))
        }
    }

    @Test("stats counts what a run stored, bytes match the files, and runs carry hit rates")
    func stats() async throws {
        let (space, report) = try await Self.filledWorkspace()
        let first = try await Self.stats(space)
        #expect(first.entries == .init(blobs: 3, outputs: 3, urls: 0, files: 2, recipes: 2))
        let files = CacheFiles(root: space.cache)
        let bytes = try ["blobs", "outputs"].map { kind in
            try files.entries(kind).reduce(0) { $0 + (try Self.size($1)) }
        }
        #expect([first.bytes.blobs, first.bytes.outputs] == bytes)
        // Local-file rows and recipe histories are rows of the database: their bytes are their text's.
        #expect(first.bytes.urls == 0 && first.bytes.files > 0 && first.bytes.recipes > 0)
        #expect(first.bytes.total == bytes.reduce(0, +) + first.bytes.files + first.bytes.recipes)
        #expect(Set(report.rows.compactMap(\.sha256)).count == first.entries.blobs)
        #expect(first.oldest_use != nil && first.newest_use != nil)
        #expect(first.runs.map(\.miss) == [3] && first.runs.first?.hit_rate == 0)

        #expect(try await space.run(manifest: Self.manifest).status == 0)
        // Without --cache-dir, THUMBGEN_CACHE_DIR (set by the runner) names the same cache.
        let result = try await CLIRunner.run(["cache", "stats", "--json"], cacheDirectory: space.cache)
        let second = try JSONDecoder().decode(StatsJSON.self, from: Data(result.stdout.utf8))
        #expect(second.directory == space.cache.path)
        #expect(second.entries == first.entries)
        #expect(second.runs.map(\.command) == ["render", "render"])
        #expect(second.runs.last?.hit == 3 && second.runs.last?.hit_rate == 1)

        let table = try await Self.cache(space, ["stats"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("outputs") && table.stdout.contains("100.0%"))
    }

    @Test("prune --max-age removes old units and old file rows, keeps recent ones and any blob a kept record names")
    func pruneByAge() async throws {
        let (space, report) = try await Self.filledWorkspace()
        let units = try Self.units(space, report)
        // A second record naming the second row's blob, used just now: that blob must stay.
        let twin = CacheFiles(root: space.cache).root
            .appendingPathComponent("v1/outputs/ee/" + String(repeating: "e", count: 64))
        try FileManager.default.createDirectory(at: twin.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: units[1].record, to: twin)
        for url in [units[0].record, units[1].record] {
            try Self.setUse(space, record: url, secondsAgo: 40 * 86400)
        }
        try Self.setFileRow(space, "a.png", "last_used", .real(Date().timeIntervalSince1970 - 40 * 86400))

        let result = try await Self.cache(space, ["prune", "--max-age", "30d"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("pruned 4 entries (1 blobs, 2 outputs, 0 urls, 1 files, 0 recipes)"), "\(result.stdout)")
        #expect(!Self.exists(units[0].record) && !Self.exists(units[0].blob))
        #expect(!Self.exists(units[1].record) && Self.exists(units[1].blob) && Self.exists(twin))
        #expect(Self.exists(units[2].record) && Self.exists(units[2].blob))
        #expect(CacheFiles(root: space.cache).fileRows() == ["b.jpg"])

        let again = try await space.run(manifest: Self.manifest)
        #expect(again.status == 0, "\(again.result.stderr)")
        #expect(again.report?.rows.map(\.cache) == ["miss", "miss", "hit"])
        #expect(CacheFiles(root: space.cache).fileRows() == ["a.png", "b.jpg"])
    }

    @Test("prune --max-size removes the least recently used units first, down to the limit")
    func pruneBySize() async throws {
        let (space, report) = try await Self.filledWorkspace()
        let units = try Self.units(space, report)
        // Used three, two and one hours ago, in manifest order; the file rows just now.
        for (index, unit) in units.enumerated() {
            try Self.setUse(space, record: unit.record, secondsAgo: Double(3 - index) * 3600)
        }
        let before = try await Self.stats(space)
        let total = try #require(before.bytes.total)
        let sizes = try units.map { try Self.size($0.record) + Self.size($0.blob) }
        // One byte short of what dropping the oldest unit frees: the second oldest goes too.
        let limit = total - sizes[0] - 1

        let result = try await Self.cache(space, ["prune", "--max-size", String(limit)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("pruned 4 entries (2 blobs, 2 outputs, 0 urls, 0 files, 0 recipes)"), "\(result.stdout)")
        for unit in units.prefix(2) { #expect(!Self.exists(unit.record) && !Self.exists(unit.blob)) }
        #expect(Self.exists(units[2].record) && Self.exists(units[2].blob))
        let after = try await Self.stats(space)
        #expect(try #require(after.bytes.total) <= limit)
        #expect(after.bytes.total == total - sizes[0] - sizes[1])
        #expect(after.entries == .init(blobs: 1, outputs: 1, urls: 0, files: 2, recipes: 2))

        let roomy = try await Self.cache(space, ["prune", "--max-size", "1M"])
        #expect(roomy.stdout.hasPrefix("pruned 0 entries"), "\(roomy.stdout)")
    }

    @Test("verify removes a blob with a flipped byte, a record with a flipped byte, and records left without a blob")
    func verify() async throws {
        let (space, report) = try await Self.filledWorkspace()
        let originals = try CacheFiles.tree(space.out)
        let units = try Self.units(space, report)
        try CacheFiles.flipByte(of: units[0].blob, at: 10)
        try CacheFiles.flipByte(of: units[1].record, at: 30)
        try Self.setFileRow(space, "b.jpg", "digest", .text("a damaged digest"))

        let result = try await Self.cache(space, ["verify"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "checked 10 entries (3 blobs, 3 outputs, 0 urls, 2 files, 2 recipes); "
                + "removed 4 (1 blobs, 2 outputs, 0 urls, 1 files, 0 recipes)\n")
        #expect(!Self.exists(units[0].blob) && !Self.exists(units[0].record))
        #expect(!Self.exists(units[1].record) && Self.exists(units[1].blob))
        #expect(Self.exists(units[2].record) && Self.exists(units[2].blob))
        #expect(CacheFiles(root: space.cache).fileRows() == ["a.png"])

        let clean = try await Self.cache(space, ["verify"])
        #expect(clean.stdout.hasSuffix("removed 0 (0 blobs, 0 outputs, 0 urls, 0 files, 0 recipes)\n"), "\(clean.stdout)")
        try FileManager.default.removeItem(at: space.out)
        let again = try await space.run(manifest: Self.manifest)
        #expect(again.report?.rows.map(\.cache) == ["miss", "miss", "hit"])
        #expect(try CacheFiles.tree(space.out) == originals)
    }

    @Test("clear removes a locked-form folder an interrupted clear left once its lock is free, and keeps one whose clear still runs")
    func clearJudgesLockedLeftovers() async throws {
        let (space, _) = try await Self.filledWorkspace()
        func leftover() throws -> URL {
            let folder = space.cache.appendingPathComponent(TemporaryName.locked(for: "v1-cleared"))
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("v1/blobs"),
                                                    withIntermediateDirectories: true)
            return folder
        }
        // An interrupted clear's: its .lock file is there, and nobody holds it.
        let abandoned = try leftover()
        #expect(FileManager.default.createFile(atPath: abandoned.appendingPathComponent(TemporarySweeper.lockName).path,
                                               contents: nil))
        // A clear still running (this test process holds its lock).
        let running = try leftover()
        let lock = try #require(LockedFile.create(running.appendingPathComponent(TemporarySweeper.lockName).path))

        let result = try await Self.cache(space, ["clear"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: abandoned.path), "the abandoned clear's folder is still there")
        #expect(FileManager.default.fileExists(atPath: running.path), "a running clear's folder was taken")
        let names = try FileManager.default.contentsOfDirectory(atPath: space.cache.path)
            .filter { !CacheFiles.databaseFiles.contains($0) }.sorted()
        #expect(names == [running.lastPathComponent, "v1"].sorted(), "\(names)")
        withExtendedLifetime(lock) {}
    }

    @Test("clear leaves an empty cache, and removes what an interrupted clear left; the next run stores again")
    func clear() async throws {
        let (space, _) = try await Self.filledWorkspace()
        let leftover = space.cache.appendingPathComponent(".v1-cleared.tg-\(Self.otherHost)-1-x.tmp")
        try FileManager.default.createDirectory(at: leftover.appendingPathComponent("blobs"),
                                                withIntermediateDirectories: true)
        // An interrupted clear's tree, unchanged for two hours, inside as well as out.
        try Self.setModified(leftover.appendingPathComponent("blobs"), secondsAgo: 7200)
        try Self.setModified(leftover, secondsAgo: 7200)

        let result = try await Self.cache(space, ["clear"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("cleared "), "\(result.stdout)")
        // The database stays, emptied (another process may have it open); the stats below show it empty.
        let names = try FileManager.default.contentsOfDirectory(atPath: space.cache.path)
        #expect(names.filter { !CacheFiles.databaseFiles.contains($0) } == ["v1"], "\(names)")
        let files = TemporaryDirectory.files(under: space.cache)
        #expect(files.allSatisfy(CacheFiles.databaseFiles.contains), "\(files)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: space.cache.path + "/v1").sorted()
        #expect(folders == ["blobs", "outputs", "tmp"])
        let empty = try await Self.stats(space)
        #expect(empty.entries == .init(blobs: 0, outputs: 0, urls: 0, files: 0, recipes: 0) && empty.runs.isEmpty)
        #expect(empty.oldest_use == nil)

        let again = try await space.run(manifest: Self.manifest)
        #expect(again.status == 0, "\(again.result.stderr)")
        #expect(again.report?.rows.map(\.cache) == ["miss", "miss", "miss"])
        #expect(try await Self.stats(space).entries == .init(blobs: 3, outputs: 3, urls: 0, files: 2, recipes: 2))
    }

    @Test("A bad or missing prune limit exits 2 and says what to type; good ones are accepted",
          arguments: [["--max-size", "12Q"], ["--max-size=-5"], ["--max-size", "1e9"], ["--max-size", "2 G"],
                      ["--max-age", "3y"], ["--max-age", "d"], []])
    func badLimits(_ limits: [String]) async throws {
        let space = try Workspace("maint")
        let result = try await Self.cache(space, ["prune"] + limits)
        #expect(result.status == 2, "\(limits): \(result.stderr)")
        let flag = limits.first?.hasPrefix("--max-age") == true ? "--max-age" : "--max-size"
        #expect(result.stderr.contains(flag))
        #expect(result.stderr.contains(flag == "--max-age" ? "30d" : "500M"), "\(result.stderr)")
        #expect(!Self.exists(space.cache), "the cache was opened before the command line was checked")
    }

    @Test("Sizes with K/M/G/T and ages with s/m/h/d/w are accepted")
    func goodLimits() async throws {
        let space = try Workspace("maint")
        for limits in [["--max-size", "123456"], ["--max-size", "500M"], ["--max-size", "2G"],
                       ["--max-size", "1.5T"], ["--max-age", "30d"], ["--max-age", "12h"],
                       ["--max-age", "90"], ["--max-size", "0", "--max-age", "2w"]] {
            let result = try await Self.cache(space, ["prune"] + limits)
            #expect(result.status == 0, "\(limits): \(result.stderr)")
        }
    }

    @Test("A cache directory that cannot be made exits 3 for every subcommand")
    func cannotMake() async throws {
        let space = try Workspace("maint")
        let blocker = try space.folder.write("not a folder", to: "blocker")
        for command in [["stats"], ["stats", "--json"], ["prune", "--max-age", "1d"], ["verify"], ["clear"]] {
            let result = try await CLIRunner.run(
                ["cache"] + command + ["--cache-dir", blocker.appendingPathComponent("cache").path])
            #expect(result.status == 3, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("thumbgen: ") && result.stdout.isEmpty)
        }
    }

    @Test("A read-only cache directory exits 3", .disabled(if: getuid() == 0, "root can write anyway"))
    func readOnly() async throws {
        let (space, _) = try await Self.filledWorkspace()
        let base = space.cache.appendingPathComponent("v1")
        for folder in [base, base.appendingPathComponent("tmp")] {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        }
        defer {
            for folder in [base, base.appendingPathComponent("tmp")] {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            }
        }
        for command in [["stats"], ["prune", "--max-age", "1d"], ["verify"], ["clear"]] {
            let result = try await Self.cache(space, command)
            #expect(result.status == 3, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("thumbgen: "))
        }
    }

    @Test("A record's last use is the database's: writing it notes one; one it knows none of is taken as used by the prune that finds it, whatever its file's time")
    func recordUsesWithoutFileTimes() throws {
        let folder = try TemporaryDirectory("maint")
        let cache = try ThumbnailCache(directory: folder.file("cache"))
        let data = Data("the output's bytes".utf8)
        let record = OutputRecord(sha256: ContentDigest.of(data), width: 1, height: 1, format: .png, bytes: data.count)
        let (known, unknown) = (String(repeating: "a", count: 64), String(repeating: "b", count: 64))
        cache.blobs.put(data, digest: record.sha256)
        cache.outputs.store(record, key: known)
        cache.outputs.store(record, key: unknown)
        cache.recordUses()
        let now = Date().timeIntervalSince1970
        #expect(UseLog.lastUses(of: .outputs, in: cache.index).keys.sorted() == [known, unknown])
        // One record's use is lost (as with a database started empty); both files look old.
        cache.index.execute("DELETE FROM uses WHERE key = ?", [.text(unknown)])
        cache.index.execute("UPDATE uses SET last_used = ? WHERE key = ?", [.real(now - 40 * 86400), .text(known)])
        for key in [known, unknown] {
            try Self.setModified(URL(fileURLWithPath: cache.layout.path(.outputs, key)), secondsAgo: 40 * 86400)
        }
        let result = CacheMaintenance(cache: cache).prune(maxSize: nil, maxAge: 30 * 86400)
        #expect(result.removed == .init(blobs: 0, outputs: 1, urls: 0, files: 0))
        #expect(!FileManager.default.fileExists(atPath: cache.layout.path(.outputs, known)))
        #expect(FileManager.default.fileExists(atPath: cache.layout.path(.outputs, unknown)))
        #expect(cache.blobs.contains(record.sha256))
        #expect((UseLog.lastUses(of: .outputs, in: cache.index)[unknown] ?? 0) >= now - 60)
    }

    /// A host id, as thumbgen 0.2.0 put in its temporary names.
    static let otherHost = "eeeeeeee"

    @Test("prune removes orphan blobs an earlier prune found an hour before, and stray temporary files, and keeps what a run may still use")
    func strays() throws {
        let folder = try TemporaryDirectory("maint")
        let cache = try ThumbnailCache(directory: folder.file("cache"))
        let tmp = URL(fileURLWithPath: cache.layout.temporaryFolder)
        let oldOrphan = Data("an orphan from a run that died".utf8), youngOrphan = Data("a record comes next".utf8)
        cache.blobs.put(oldOrphan, digest: ContentDigest.of(oldOrphan))
        cache.blobs.put(youngOrphan, digest: ContentDigest.of(youngOrphan))
        // The old orphan was found unnamed by a prune two hours ago; its file's time says nothing.
        cache.index.execute("INSERT INTO orphans (digest, first_seen) VALUES (?, ?)",
                            [.text(ContentDigest.of(oldOrphan)), .real(Date().timeIntervalSince1970 - 7200)])
        try Self.setModified(URL(fileURLWithPath: cache.blobs.path(ContentDigest.of(youngOrphan))), secondsAgo: 86400)

        /// Makes `name` in tmp/ (a folder holding one file when `folder`), the file and the
        /// folder dated `fileAge` and `folderAge` seconds back.
        func make(_ name: String, folder: Bool = false, fileAge: Double, folderAge: Double = 0) throws -> URL {
            let url = tmp.appendingPathComponent(name)
            let file = folder ? url.appendingPathComponent("body") : url
            if folder { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
            try Data("partial".utf8).write(to: file)
            try Self.setModified(file, secondsAgo: fileAge)
            if folder { try Self.setModified(url, secondsAgo: folderAge) }
            return url
        }
        let other = Self.otherHost
        let removed = [
            try make(TemporaryName.locked(for: "entry"), fileAge: 0),                      // its lock is free
            try make(".entry.tg-\(other)-1-a.tmp", fileAge: 7200),                       // 0.2.0's name, old
            try make(".downloads.tg-\(other)-2-b.tmp", folder: true, fileAge: 7200, folderAge: 7200),
            try make("junk", fileAge: 7200),                                              // not ours by name, old
        ]
        let heldName = TemporaryName.locked(for: "downloads")
        let kept = [
            try make(".entry.tg-\(other)-3-d.tmp", fileAge: 10),                          // 0.2.0's name, recent
            try make(".downloads.tg-\(other)-4-e.tmp", folder: true, fileAge: 10, folderAge: 7200),
            try make(heldName, folder: true, fileAge: 7200, folderAge: 7200),              // a live run's
            try make("fresh-junk", fileAge: 10),
        ]
        let held = try #require(LockedFile.create(tmp.appendingPathComponent(heldName + "/" + TemporarySweeper.lockName).path))

        let result = CacheMaintenance(cache: cache).prune(maxSize: nil, maxAge: nil)
        #expect(result.removed == .init(blobs: 1, outputs: 0, urls: 0, files: 0))
        #expect(result.temporary == removed.count)
        for url in removed { #expect(!Self.exists(url), "\(url.lastPathComponent) was kept") }
        for url in kept { #expect(Self.exists(url), "\(url.lastPathComponent) was removed") }
        #expect(!cache.blobs.contains(ContentDigest.of(oldOrphan)))
        #expect(cache.blobs.contains(ContentDigest.of(youngOrphan)))
        #expect(result.remaining == Int64(youngOrphan.count))
        // The young one was noted: a prune an hour later removes it.
        let later = CacheMaintenance(cache: cache).prune(maxSize: nil, maxAge: nil, now: Date().timeIntervalSince1970 + 3700)
        #expect(later.removed.blobs == 1)
        #expect(!cache.blobs.contains(ContentDigest.of(youngOrphan)))
        withExtendedLifetime(held) {}
    }
}
