import Foundation
import Testing
import Thumbgen

/// `render --prune` end to end, on the real binary: what an earlier run placed under `--out`
/// and no row of this run produced goes, and nothing else (docs/command-line.md, "Pruning").
@Suite("End to end: --prune removes only what thumbgen placed")
struct PruneTests {
    /// A site of three sources, `a.jpg`, `sub/b.jpg` and `keep/c.jpg`, under `src/`.
    static func site(_ space: Workspace) throws {
        for (name, width) in [("a.jpg", 320), ("sub/b.jpg", 300), ("keep/c.jpg", 280)] {
            try space.folder.write(try RawImage.quadrants(width: width, height: 200).encoded(as: .jpeg),
                                   to: "src/" + name)
        }
    }

    /// `thumbgen src --out out --size 64 --format webp,jpeg ARGS` in the workspace.
    static func render(_ space: Workspace, _ arguments: [String] = []) async throws -> CLIResult {
        try await CLIRunner.run([space.folder.file("src").path, "--out", space.out.path, "--size", "64",
                                 "--format", "webp,jpeg"] + arguments, cacheDirectory: space.cache)
    }

    /// The files under `out/` but the record thumbgen keeps there without a cache.
    static func files(_ space: Workspace) -> [String] {
        space.outputFiles.filter { $0 != PlacedRecordFile.name }
    }

    /// The `pruned` list of a report: each entry's `out`.
    static func pruned(_ report: URL) throws -> [String] {
        let list = try #require(try ReportSchemaTests.json(report)["pruned"] as? [[String: Any]], "no pruned list")
        return list.compactMap { $0["out"] as? String }
    }

    static func schemaProblems(_ url: URL) throws -> [String] {
        guard ReportSchemaTests.hasValidator else { return [] }
        return try #require(try ReportSchemaTests.violations(url))
    }

    @Test("A rebuild after deleting a source prunes exactly its outputs; --dry-run --prune lists the same and removes nothing",
          arguments: [false, true])
    func deletedSource(noCache: Bool) async throws {
        let space = try Workspace("prune")
        try Self.site(space)
        let cacheFlag = noCache ? ["--no-cache"] : []
        let first = try await Self.render(space, cacheFlag)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("pruned"), "\(first.stderr)")
        let before = Self.files(space)
        #expect(before.count == 6, "\(before)")
        #expect(FileManager.default.fileExists(atPath: space.output(PlacedRecordFile.name).path) == noCache)

        try FileManager.default.removeItem(at: space.folder.file("src/sub/b.jpg"))
        let dryReport = space.folder.file("dry.json")
        let dry = try await Self.render(space, cacheFlag + ["--dry-run", "--prune", "--report", dryReport.path])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stderr.contains("2 to prune"), "\(dry.stderr)")
        #expect(try Self.pruned(dryReport) == ["sub/b-64x43.jpg", "sub/b-64x43.webp"])
        #expect(Self.files(space) == before, "the dry run removed something")
        #expect(try Self.schemaProblems(dryReport).isEmpty)

        let report = space.folder.file("prune.json")
        let run = try await Self.render(space, cacheFlag + ["--prune", "--report", report.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("0 failed, 0 cancelled, 2 pruned in"), "\(run.stderr)")
        #expect(try Self.pruned(report) == ["sub/b-64x43.jpg", "sub/b-64x43.webp"])
        #expect((try ReportSchemaTests.json(report)["summary"] as? [String: Any])?["pruned"] as? Int == 2)
        #expect(try Self.schemaProblems(report).isEmpty)
        #expect(Self.files(space) == before.filter { !$0.hasPrefix("sub/") })
        // thumbgen made sub/ for b's outputs; emptied, it goes.
        #expect(!FileManager.default.fileExists(atPath: space.output("sub").path))

        let again = try await Self.render(space, cacheFlag + ["--prune"])
        #expect(again.status == 0 && again.stderr.contains(", 0 pruned in"), "\(again.stderr)")

        // The photo comes back: a run without --prune places its outputs and records them
        // again (a run like the very first, whose record the prune changed since), so that
        // deleting it once more prunes them once more.
        try space.folder.write(try RawImage.quadrants(width: 300, height: 200).encoded(as: .jpeg), to: "src/sub/b.jpg")
        #expect(try await Self.render(space, cacheFlag).status == 0)
        #expect(Self.files(space) == before)
        try FileManager.default.removeItem(at: space.folder.file("src/sub/b.jpg"))
        let last = try await Self.render(space, cacheFlag + ["--prune"])
        #expect(last.stderr.contains(", 2 pruned in"), "\(last.stderr)")
        #expect(Self.files(space) == before.filter { !$0.hasPrefix("sub/") })
    }

    @Test("A hand-written file survives; an output changed since is kept and named once in the warning",
          arguments: [false, true])
    func handWrittenAndChanged(noCache: Bool) async throws {
        let space = try Workspace("prune")
        try Self.site(space)
        let cacheFlag = noCache ? ["--no-cache"] : []
        #expect(try await Self.render(space, cacheFlag).status == 0)
        try space.folder.write("my notes\n", to: "out/notes.txt")
        try space.folder.write("a stray\n", to: "out/a-64x40.txt")
        let changed = space.output("keep/c-64x46.webp")
        let handle = try FileHandle(forWritingTo: changed)
        try handle.seekToEnd()
        handle.write(Data("edited".utf8))
        try handle.close()
        try FileManager.default.removeItem(at: space.folder.file("src/keep/c.jpg"))

        let dry = try await Self.render(space, cacheFlag + ["--dry-run", "--prune"])
        #expect(dry.stderr.contains("--prune would leave 1 file that changed since thumbgen placed it"), "\(dry.stderr)")
        #expect(dry.stderr.contains("keep/c-64x46.webp"), "\(dry.stderr)")

        let report = space.folder.file("prune.json")
        let run = try await Self.render(space, cacheFlag + ["--prune", "--report", report.path])
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.components(separatedBy: "\n").filter { $0.contains("changed since") }
        #expect(warnings.count == 1 && warnings.first?.contains("keep/c-64x46.webp") == true, "\(run.stderr)")
        #expect(try Self.pruned(report) == ["keep/c-64x46.jpg"])
        #expect(FileManager.default.fileExists(atPath: changed.path))
        #expect(FileManager.default.fileExists(atPath: space.output("notes.txt").path))
        #expect(FileManager.default.fileExists(atPath: space.output("a-64x40.txt").path))
        // The edited file is the user's now: no later prune names or removes it.
        let later = try await Self.render(space, cacheFlag + ["--prune"])
        #expect(!later.stderr.contains("changed since") && later.stderr.contains(", 0 pruned in"), "\(later.stderr)")
        #expect(FileManager.default.fileExists(atPath: changed.path))
    }

    @Test("An emptied folder thumbgen made goes; one holding a user's file stays; one the user made stays")
    func folders() async throws {
        let space = try Workspace("prune")
        try Self.site(space)
        try space.folder.write(try RawImage.quadrants(width: 200, height: 200).encoded(as: .png), to: "src/mine/d.png")
        // The user made out/mine/ before thumbgen wrote into it.
        try FileManager.default.createDirectory(at: space.output("mine"), withIntermediateDirectories: true)
        #expect(try await Self.render(space).status == 0)
        try space.folder.write("keep me\n", to: "out/keep/readme.txt")
        for name in ["sub/b.jpg", "keep/c.jpg", "mine/d.png"] {
            try FileManager.default.removeItem(at: space.folder.file("src/" + name))
        }
        let run = try await Self.render(space, ["--prune"])
        #expect(run.stderr.contains(", 6 pruned in"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: space.output("sub").path), "sub/ was left")
        #expect(Self.files(space) == ["a-64x40.jpg", "a-64x40.webp", "keep/readme.txt"])
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: space.output("mine").path, isDirectory: &isFolder) && isFolder.boolValue,
                "a folder the user made was removed")
    }

    @Test("A row that fails keeps its source's files; without --prune nothing goes and the summary line is as before")
    func failedRowsAndDefaults() async throws {
        let space = try Workspace("prune")
        try space.fixture(.quadrants(width: 200, height: 100), "a.png")
        try space.fixture(.quadrants(width: 100, height: 200), "b.png")
        let both = "src,out,size\na.png,a.png,32x32\nb.png,b.png,32x32\n"
        #expect(try await space.run(manifest: both).status == 0)
        // b.png is now unreadable as an image: its row fails, its output's fate is undecided.
        try space.folder.write("not an image", to: "b.png")
        let plain = try await space.run(manifest: "src,out,size\nb.png,b.png,32x32\n")
        #expect(plain.status == 1)
        #expect(plain.result.stderr.contains("1 rows: 0 written, 0 unchanged, 1 failed, 0 cancelled in"),
                "\(plain.result.stderr)")
        #expect(!plain.result.stderr.contains("prune"))
        let pruning = try await space.run(manifest: "src,out,size\nb.png,b.png,32x32\n", ["--prune"])
        #expect(pruning.status == 1)
        #expect(pruning.result.stderr.contains(", 1 pruned in"), "\(pruning.result.stderr)")
        #expect(Self.files(space) == ["b.png"], "\(Self.files(space))")
    }

    @Test("--prune needs --out: render without it, and warm, are usage errors (status 2)")
    func needsOut() async throws {
        let space = try Workspace("prune")
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let manifest = try space.folder.write("src\na.png\n", to: "manifest.csv")
        let render = try await CLIRunner.run([manifest.path, "--prune"], cacheDirectory: space.cache)
        #expect(render.status == 2, "\(render.stderr)")
        #expect(render.stderr.contains("--out"), "\(render.stderr)")
        let warm = try await CLIRunner.run(["warm", manifest.path, "--prune"], cacheDirectory: space.cache)
        #expect(warm.status == 2, "\(warm.stderr)")
        #expect(warm.stderr.contains("--prune"), "\(warm.stderr)")
    }

    @Test("Four shards over one --out prune only their own sources' files; report merge lists what they pruned",
          arguments: [false, true])
    func fourShards(noCache: Bool) async throws {
        let space = try Workspace("prune-shards")
        let manifest = try space.folder.write(try ShardHarness.manifest(in: space, sources: 16, sizes: [16, 24]),
                                              to: "manifest.csv")
        let first = try await ShardHarness.runAll(4, in: space) { k in
            // Without a cache the four share --out/.thumbgen-placed, each adding its own files.
            [manifest.path, "--out", space.out.path, "--shard", "\(k)/4", "--prune"] + (noCache ? ["--no-cache"] : [])
        }
        #expect(first.allSatisfy { $0.status == 0 && $0.stderr.contains(", 0 pruned in") }, "\(first.map(\.stderr))")
        #expect(Self.files(space).count == 32)

        // Sources 0, 1, 2 and 5 leave the manifest; a shard that has none of them still runs.
        let gone = [0, 1, 2, 5].map { "img/s\($0)." }
        let lines = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n")
        let kept = lines.filter { line in !gone.contains { line.hasPrefix($0) } }
        let smaller = try space.folder.write(kept.joined(separator: "\n") + "\n", to: "smaller.csv")
        let reports = (0..<4).map { space.folder.file("r\($0).json") }
        let second = try await ShardHarness.runAll(4, in: space) { k in
            [smaller.path, "--out", space.out.path, "--shard", "\(k)/4", "--prune", "--report", reports[k].path]
                + (noCache ? ["--no-cache"] : [])
        }
        #expect(second.allSatisfy { $0.status == 0 }, "\(second.map(\.stderr))")
        let expected = (0..<16).filter { ![0, 1, 2, 5].contains($0) }.flatMap { index in
            [16, 24].map { "t/s\(index)-\($0).\(index % 2 == 0 ? "webp" : "png")" }
        }.sorted()
        #expect(Self.files(space) == expected)
        var prunedByShard: [String] = []
        for (k, report) in reports.enumerated() {
            let pruned = try Self.pruned(report)
            for path in pruned {
                let row = lines.first { $0.hasSuffix("," + path) }
                let src = row.map { String($0.split(separator: ",")[0]) }
                #expect(Shard.index(ofSource: src, count: 4) == k, "shard \(k) pruned \(path)")
            }
            prunedByShard += pruned
        }
        #expect(prunedByShard.sorted() == [0, 1, 2, 5].flatMap { index in
            [16, 24].map { "t/s\(index)-\($0).\(index % 2 == 0 ? "webp" : "png")" }
        }.sorted())

        let merged = space.folder.file("merged.json")
        let merge = try await CLIRunner.run(["report", "merge"] + reports.map(\.path) + ["-o", merged.path])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stderr.contains(", 8 pruned in"), "\(merge.stderr)")
        #expect(try Self.pruned(merged) == prunedByShard.sorted())
        #expect((try ReportSchemaTests.json(merged)["summary"] as? [String: Any])?["pruned"] as? Int == 8)
        #expect(try Self.schemaProblems(merged).isEmpty)
    }

    @Test("A cancelled run prunes nothing, and says so")
    func cancelledPrunesNothing() async throws {
        let space = try Workspace("prune-cancel")
        try space.fixture(.quadrants(width: 40, height: 40), "old.png")
        #expect(try await space.run(manifest: "src,out\nold.png,old.png\n").status == 0)
        let manifest = try await OffPool.run { try CancellationTests.prepare(space) }
        let runner = try CLIRunner([manifest.path, "--out", space.out.path, "--jobs", "1", "--prune"],
                                   cacheDirectory: space.cache)
        try runner.start()
        try await OffPool.run {
            let deadline = ContinuousClock.now + .seconds(180)
            while runner.isRunning && ContinuousClock.now < deadline && Self.files(space).count < 2 { usleep(10_000) }
        }
        try #require(runner.isRunning, "the run ended before it could be cancelled")
        runner.send(SIGINT)
        let result = await runner.wait(timeout: .seconds(120))
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("--prune: nothing pruned: the run was interrupted"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: space.output("old.png").path))
    }
}
