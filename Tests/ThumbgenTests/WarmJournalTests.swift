import Foundation
import Testing
@testable import Thumbgen

/// The warm journal, end to end: a warm run it serves reports what the slow path reports, and
/// anything that changed under it (the file under `--out`, the source, the recipe, the cache)
/// is noticed and dealt with as the slow path deals with it.
@Suite("Warm journal")
struct WarmJournalTests {
    static let old = Date(timeIntervalSince1970: 978_307_200)  // 2001-01-01

    /// Two sources at two sizes, one output in a subfolder: four rows.
    static let manifest = CSV.manifest(["src", "size", "out"], [
        ["a.png", "40", "{name}-{w}x{h}.png"], ["a.png", "20", "{name}-{w}x{h}.png"],
        ["b.png", "40", "sub/{name}-{w}.png"], ["b.png", "20", "{name}-{w}x{h}.jpg"],
    ])

    /// A workspace whose sources are dated long ago (so that their stamps are recorded), run
    /// once to render and once more, a second later, to prove every row up to date the slow
    /// way and write the journal; the second run's report.
    static func warmedUp(_ manifest: String = manifest, _ arguments: [String] = [], status: Int32 = 0,
                         sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> (Workspace, Report) {
        let space = try Workspace("journal")
        for (name, width) in [("a.png", 120), ("b.png", 90)] {
            let url = try space.fixture(.quadrants(width: width, height: 60), name)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url.path)
        }
        let first = try await space.run(manifest: manifest, arguments, sourceLocation: sourceLocation)
        #expect(first.status == status, "\(first.result.stderr)", sourceLocation: sourceLocation)
        try await settle()
        let second = try await space.run(manifest: manifest, arguments, sourceLocation: sourceLocation)
        #expect(second.status == status, "\(second.result.stderr)", sourceLocation: sourceLocation)
        #expect(journals(space).count == 1, sourceLocation: sourceLocation)
        return (space, try #require(second.report, sourceLocation: sourceLocation))
    }

    /// Waits until files written now are old enough for their stamps to be trusted.
    static func settle() async throws { try await Task.sleep(for: .milliseconds(1100)) }

    /// The `--out` folders the cache's warm journals are of.
    static func journals(_ space: Workspace) -> [String] {
        CacheFiles(root: space.cache).texts("SELECT out_path FROM journals")
    }

    /// Every row of the cache's warm journals, as text.
    static func journalRows(_ space: Workspace) -> [String] {
        let files = CacheFiles(root: space.cache)
        return files.texts("SELECT id, out_path, files_generation, outputs_generation, last_used FROM journals")
            + files.texts("SELECT journal, ordinal, path, size, mtime, hex(digest), written FROM journal_sources ORDER BY 1, 2")
            + files.texts("SELECT journal, hash, hex(key), hex(proof) FROM journal_entries ORDER BY 1, 2")
    }

    /// The warm journals' entries and sources, without the journals' own rows and ids.
    static func entryRows(_ space: Workspace) -> [String] {
        let files = CacheFiles(root: space.cache)
        return files.texts("SELECT ordinal, path, size, mtime, hex(digest), written FROM journal_sources ORDER BY 1")
            + files.texts("SELECT hash, hex(key), hex(proof) FROM journal_entries ORDER BY 1")
    }

    /// What a report says of each row, timings aside.
    static func facts(_ report: Report?) -> [String] {
        (report?.rows ?? []).map {
            [String($0.row), $0.status, $0.out ?? "-", "\($0.width ?? -1)x\($0.height ?? -1)",
             String($0.bytes ?? -1), $0.sha256 ?? "-", $0.format ?? "-", $0.cache ?? "-",
             $0.source_sha256 ?? "-", $0.error?.code ?? "-"].joined(separator: " ")
        }
    }

    static func inode(_ url: URL) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.intValue)
    }

    @Test("A warm run the journal serves reports what the slow path reported, and touches no output")
    func sameReport() async throws {
        let (space, slow) = try await Self.warmedUp()
        #expect(slow.rows.map(\.status) == ["unchanged", "unchanged", "unchanged", "unchanged"])
        let outputs = ["a-40x20.png", "a-20x10.png", "sub/b-40.png", "b-20x13.jpg"].map(space.output)
        let inodes = try outputs.map(Self.inode)
        let fast = try await space.run(manifest: Self.manifest)
        #expect(fast.status == 0, "\(fast.result.stderr)")
        #expect(Self.facts(fast.report) == Self.facts(slow))
        #expect(fast.report?.summary.unchanged == 4 && fast.report?.summary.cache?["hit"] == 4)
        #expect(try outputs.map(Self.inode) == inodes)
        // And once more, from the journal that run wrote.
        let again = try await space.run(manifest: Self.manifest)
        #expect(Self.facts(again.report) == Self.facts(slow))
    }

    /// A run over some of the rows replaced the journal with its own, and the next run over
    /// all of them read every record and hashed every output again.
    @Test("A run over some of the rows, or one that only renders, leaves the journal whole; one that proves rows the slow way replaces it")
    func subsetRuns() async throws {
        let (space, _) = try await Self.warmedUp()
        let whole = Self.journalRows(space)
        let rows = Self.manifest.split(separator: "\n", omittingEmptySubsequences: false)
        let firstRow = "\(rows[0])\n\(rows[1])\n"
        let one = try await space.run(manifest: firstRow, name: "one.csv")
        #expect(one.status == 0 && one.report?.summary.unchanged == 1, "\(one.result.stderr)")
        #expect(Self.journalRows(space) == whole)
        // A new row alone: rendered, so nothing it proved yet; the journal stays too.
        let new = CSV.manifest(["src", "size", "out"], [["a.png", "30", "{name}-{w}x{h}.png"]])
        let rendered = try await space.run(manifest: new, name: "new.csv")
        #expect(rendered.status == 0 && rendered.report?.summary.written == 1, "\(rendered.result.stderr)")
        #expect(Self.journalRows(space) == whole)
        // The whole manifest again: every row from the journal, which it saves with the same
        // entries (and the generation the new row's render moved on).
        let entries = Self.entryRows(space)
        let all = try await space.run(manifest: Self.manifest)
        #expect(all.status == 0 && all.report?.summary.unchanged == 4)
        #expect(Self.entryRows(space) == entries)
        // The new row once its output has stood still: proved the slow way, so noted, and the
        // journal is written anew with it.
        try await Self.settle()
        let proved = try await space.run(manifest: new, name: "new.csv")
        #expect(proved.status == 0 && proved.report?.summary.unchanged == 1)
        #expect(Self.journalRows(space) != whole && Self.journals(space).count == 1)
    }

    @Test("An --out file edited (same size), touched, deleted or replaced is noticed")
    func outputChanged() async throws {
        let (space, slow) = try await Self.warmedUp()
        let file = space.output("a-40x20.png")
        let good = try Data(contentsOf: file)

        // Other bytes of the same size, written in place: rewritten from the cache.
        var bad = good
        bad[bad.count - 5] ^= 0xff
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: bad)
        try handle.close()
        var run = try await space.run(manifest: Self.manifest)
        #expect(run.report?.row(2)?.status == "written")
        #expect(try Data(contentsOf: file) == good)
        #expect(Self.facts(run.report).dropFirst() == Self.facts(slow).dropFirst())

        // Only the time moved: checked by its bytes, and left alone.
        try FileManager.default.setAttributes([.modificationDate: Self.old], ofItemAtPath: file.path)
        run = try await space.run(manifest: Self.manifest)
        #expect(Self.facts(run.report) == Self.facts(slow))
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) == Self.old)

        // Deleted: written again.
        try FileManager.default.removeItem(at: file)
        run = try await space.run(manifest: Self.manifest)
        #expect(run.report?.row(2)?.status == "written")
        #expect(try Data(contentsOf: file) == good)

        // Replaced by another file: with the same bytes it is left, with others rewritten.
        try await Self.settle()
        _ = try await space.run(manifest: Self.manifest)
        let other = try space.folder.write(good, to: "other.png")
        #expect(rename(other.path, file.path) == 0)
        run = try await space.run(manifest: Self.manifest)
        #expect(Self.facts(run.report) == Self.facts(slow))
        let stranger = try space.folder.write(bad, to: "stranger.png")
        #expect(rename(stranger.path, file.path) == 0)
        run = try await space.run(manifest: Self.manifest)
        #expect(run.report?.row(2)?.status == "written")
        #expect(try Data(contentsOf: file) == good)
    }

    @Test("A source changed (other size, or same size with a new time) is rendered again")
    func sourceChanged() async throws {
        let (space, slow) = try await Self.warmedUp()
        let source = space.folder.file("a.png")
        // Another image of another size (stored uncompressed: its size is its dimensions').
        let stored = { (colours: [Colour]) in
            try RawImage.quadrants(width: 100, height: 80, colours).encoded(as: .png, pngCompression: 0)
        }
        try stored([.red, .green, .blue, .yellow]).write(to: source)
        try FileManager.default.setAttributes([.modificationDate: Self.old], ofItemAtPath: source.path)
        var run = try await space.run(manifest: Self.manifest)
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.row(2)?.status == "written" && run.report?.row(2)?.cache == "miss")
        #expect(run.report?.row(2)?.out == "a-40x32.png")
        #expect(run.report?.row(4)?.status == "unchanged")
        try await Self.settle()
        _ = try await space.run(manifest: Self.manifest)
        let served = try await space.run(manifest: Self.manifest)
        #expect(served.report?.row(2)?.status == "unchanged")

        // The same size, other pixels, written in place (a new modification time).
        let other = try stored([.blue, .yellow, .red, .green])
        #expect(other.count == (try Data(contentsOf: source)).count)
        let handle = try FileHandle(forWritingTo: source)
        try handle.write(contentsOf: other)
        try handle.close()
        run = try await space.run(manifest: Self.manifest)
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.row(2)?.status == "written" && run.report?.row(2)?.cache == "miss")
        #expect(run.report?.row(2)?.source_sha256 != served.report?.row(2)?.source_sha256)
        #expect(run.report?.row(2)?.sha256 != served.report?.row(2)?.sha256)
        #expect(run.report?.row(4)?.sha256 == slow.row(4)?.sha256)
    }

    @Test("A changed recipe renders again, and changing it back is served again")
    func recipeChanged() async throws {
        let (space, slow) = try await Self.warmedUp()
        let run = try await space.run(manifest: Self.manifest, ["--quality", "30"])
        #expect(run.report?.row(5)?.status == "written" && run.report?.row(5)?.cache == "miss")
        #expect(run.report?.row(5)?.sha256 != slow.row(5)?.sha256)
        let back = try await space.run(manifest: Self.manifest)
        #expect(back.report?.row(5)?.status == "written" && back.report?.row(5)?.cache == "hit")
        #expect(back.report?.row(5)?.sha256 == slow.row(5)?.sha256)
        #expect(Self.facts(back.report).prefix(3) == Self.facts(slow).prefix(3))
    }

    @Test("A damaged, truncated or foreign journal is ignored, and the run is right")
    func damagedJournal() async throws {
        let (space, slow) = try await Self.warmedUp()
        let damages = [
            "UPDATE journal_entries SET proof = substr(proof, 1, length(proof) - 7)",
            "UPDATE journal_entries SET proof = randomblob(length(proof))",
            "UPDATE journal_entries SET proof = x''",
            "UPDATE journal_entries SET key = randomblob(32)",
            "UPDATE journal_sources SET digest = x'00'",
            "UPDATE journal_sources SET ordinal = ordinal + 1000",
            "DELETE FROM journal_sources",
            "UPDATE journals SET out_inode = out_inode + 1",
            "UPDATE journals SET files_generation = 0, outputs_generation = 0",
        ]
        for damage in damages {
            try CacheFiles(root: space.cache).execute(damage)
            let run = try await space.run(manifest: Self.manifest)
            #expect(run.status == 0, "\(damage): \(run.result.stderr)")
            #expect(Self.facts(run.report) == Self.facts(slow), "\(damage)")
        }
        // Written whole again by the last run: the next one is served as before.
        let run = try await space.run(manifest: Self.manifest)
        #expect(Self.facts(run.report) == Self.facts(slow))
        #expect(Self.journals(space).count == 1)
    }

    @Test("Another --out folder's journal, or the same journal in another cache, is not trusted")
    func foreignFolders() async throws {
        let (space, slow) = try await Self.warmedUp()
        // Another --out with the same names, three of them other bytes of the same sizes,
        // given this journal as its own.
        let other = space.folder.file("other")
        try FileManager.default.copyItem(at: space.out, to: other)
        for name in ["a-40x20.png", "a-20x10.png", "b-20x13.jpg"] {
            var bytes = try Data(contentsOf: other.appendingPathComponent(name))
            bytes[bytes.count - 5] ^= 0xff
            try bytes.write(to: other.appendingPathComponent(name))
        }
        let real = try #require(realpath(other.path, nil))
        let otherPath = String(cString: real)
        free(real)
        let folder = try #require(FileStamp.of(otherPath))
        let files = CacheFiles(root: space.cache)
        try files.execute("""
            INSERT INTO journals (out_path, out_device, out_inode, files_generation, outputs_generation, last_used)
            SELECT ?, ?, ?, files_generation, outputs_generation, last_used FROM journals
            """, [.text(otherPath), .integer(Int64(bitPattern: folder.device)), .integer(Int64(bitPattern: folder.inode))])
        let copied = "(SELECT id FROM journals WHERE out_path = ?)"
        try files.execute("INSERT INTO journal_sources SELECT \(copied), ordinal, path, device, inode, size, mtime, ctime, digest, written FROM journal_sources", [.text(otherPath)])
        try files.execute("INSERT INTO journal_entries SELECT \(copied), hash, key, proof FROM journal_entries", [.text(otherPath)])
        #expect(Self.journals(space).count == 2)
        let url = try space.folder.write(Self.manifest, to: "manifest.csv")
        let report = space.folder.file("other.json")
        var result = try await CLIRunner.run([url.path, "--out", other.path, "--report", report.path],
                                             cacheDirectory: space.cache)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try Report.read(report).rows
        #expect(rows.map(\.status) == ["written", "written", "unchanged", "written"])
        #expect(rows.map(\.sha256) == slow.rows.map(\.sha256))

        // The whole cache copied elsewhere: its records are other files, its journal the same.
        let copy = space.folder.file("cache-copy")
        try FileManager.default.copyItem(at: space.cache, to: copy)
        result = try await CLIRunner.run([url.path, "--out", space.out.path, "--report", report.path],
                                         cacheDirectory: copy)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.facts(try Report.read(report)) == Self.facts(slow))
    }

    @Test("Rows sharing one path keep the claims' rules when the journal serves them")
    func sharedPaths() async throws {
        let manifest = CSV.manifest(["src", "size", "out", "id"], [
            ["a.png", "40", "x.png", "first"], ["a.png", "40", "x.png", "twin"], ["b.png", "40", "x.png", "other"],
        ])
        let (space, slow) = try await Self.warmedUp(manifest, status: 1)
        #expect(slow.rows.map(\.status) == ["unchanged", "unchanged", "failed"])
        #expect(slow.row(4)?.error?.code == "output_conflict")
        for _ in 0..<2 {
            let run = try await space.run(manifest: manifest)
            #expect(run.status == 1)
            #expect(Self.facts(run.report) == Self.facts(slow))
        }
    }

    @Test("A dry run reads the journal and leaves it as it is")
    func dryRun() async throws {
        let (space, _) = try await Self.warmedUp()
        let before = Self.journalRows(space)
        let run = try await space.run(manifest: Self.manifest, ["--dry-run"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.rows.map(\.plan) == ["keep", "keep", "keep", "keep"])
        #expect(Self.journalRows(space) == before)
    }

    @Test("After cache clear or prune, the outputs in place are rendered again, as without a journal")
    func cacheCleared() async throws {
        let (space, slow) = try await Self.warmedUp()
        _ = try await space.run(manifest: Self.manifest)
        var result = try await CLIRunner.run(["cache", "prune", "--max-size", "0", "--cache-dir", space.cache.path],
                                             cacheDirectory: space.cache)
        #expect(result.status == 0, "\(result.stderr)")
        var run = try await space.run(manifest: Self.manifest)
        #expect(run.report?.rows.map(\.status) == ["unchanged", "unchanged", "unchanged", "unchanged"])
        #expect(run.report?.rows.map(\.cache) == ["miss", "miss", "miss", "miss"])
        #expect(run.report?.rows.map(\.sha256) == slow.rows.map(\.sha256))
        try await Self.settle()
        _ = try await space.run(manifest: Self.manifest)
        _ = try await space.run(manifest: Self.manifest)
        result = try await CLIRunner.run(["cache", "clear", "--cache-dir", space.cache.path], cacheDirectory: space.cache)
        #expect(result.status == 0, "\(result.stderr)")
        run = try await space.run(manifest: Self.manifest)
        #expect(run.report?.rows.map(\.cache) == ["miss", "miss", "miss", "miss"])
        #expect(run.report?.rows.map(\.status) == ["unchanged", "unchanged", "unchanged", "unchanged"])
    }

    /// Makes every output record under `v1/outputs` and every `files` row last used at `date`:
    /// the records' modification times, and the uses the database holds.
    static func age(records space: Workspace, to date: Date) throws {
        let cache = try ThumbnailCache(directory: space.cache)
        cache.index.execute("UPDATE uses SET last_used = ?", [.real(date.timeIntervalSince1970)])
        cache.index.execute("UPDATE files SET last_used = ?", [.real(date.timeIntervalSince1970)])
        cache.close()
        for kind in ["outputs"] {
            let folder = space.cache.appendingPathComponent("v1/\(kind)")
            for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
                try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
            }
        }
    }

    /// Makes every warm journal of `space`'s cache last used at `date` (the database's `journals`).
    static func age(journals space: Workspace, to date: Date) throws {
        try CacheFiles(root: space.cache).execute("UPDATE journals SET last_used = ?", [.real(date.timeIntervalSince1970)])
    }

    /// When the journal of `space`'s `--out` was last used, as the cache's database says.
    static func journalUse(_ space: Workspace) -> Date? {
        guard let cache = ThumbnailCache(lookingAt: space.cache), let real = realpath(space.out.path, nil) else { return nil }
        defer { free(real) }
        return WarmJournal.lastUse(ofJournalFor: String(cString: real), in: cache.index).map { Date(timeIntervalSince1970: $0) }
    }

    @Test("Records the journal serves are not touched: the journal's use, a row of the database, is their last use, which prune reads")
    func journalMarksUse() async throws {
        let (space, _) = try await Self.warmedUp()
        // Every record looks unused for years; the journal is marked used by the next run.
        try Self.age(records: space, to: Self.old)
        try Self.age(journals: space, to: Self.old)
        let before = Self.journalRows(space).dropFirst()
        let served = try await space.run(manifest: Self.manifest)
        #expect(served.report?.rows.map(\.cache) == ["hit", "hit", "hit", "hit"])
        #expect(Self.journalRows(space).dropFirst() == before, "the journal was written again")
        let marked = try #require(Self.journalUse(space))
        #expect(abs(marked.timeIntervalSinceNow) < 60)
        let record = try #require(FileManager.default.enumerator(atPath: space.cache.appendingPathComponent("v1/outputs").path)?
            .compactMap { $0 as? String }.first { $0.count > 3 })
        let recordDate = try #require(FileManager.default.attributesOfItem(
            atPath: space.cache.appendingPathComponent("v1/outputs/\(record)").path)[.modificationDate] as? Date)
        #expect(recordDate == Self.old, "a record the journal served was touched")
        // Prune by age keeps what the journal used lately...
        var result = try await CLIRunner.run(["cache", "prune", "--max-age", "30d", "--cache-dir", space.cache.path],
                                             cacheDirectory: space.cache)
        #expect(result.status == 0, "\(result.stderr)")
        let sources = CacheFiles(root: space.cache).fileRows()
        #expect(!sources.isEmpty)
        var run = try await space.run(manifest: Self.manifest)
        #expect(run.report?.rows.map(\.cache) == ["hit", "hit", "hit", "hit"])
        // ...and, once the journal too is old, removes them like any unused entry.
        try Self.age(records: space, to: Self.old)
        try Self.age(journals: space, to: Self.old)
        result = try await CLIRunner.run(["cache", "prune", "--max-age", "30d", "--cache-dir", space.cache.path],
                                         cacheDirectory: space.cache)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(CacheFiles(root: space.cache).fileRows().isEmpty, "the files rows outlived their journal's use")
        run = try await space.run(manifest: Self.manifest)
        #expect(run.report?.rows.map(\.cache) == ["miss", "miss", "miss", "miss"])
        #expect(CacheFiles(root: space.cache).fileRows() == sources)
    }
}
