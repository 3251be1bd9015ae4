import Foundation
import Testing

/// The cache under stress: a run killed with SIGKILL and run again ends exactly like a run
/// that was never interrupted, and processes sharing one cache at once all succeed with the
/// same bytes.
@Suite("Cache: crashes and concurrent processes")
struct CacheConcurrencyTests {
    /// Four 1200×900 sources and `count` rows over them, each a different size.
    static func workspace(rows count: Int = 60) throws -> (Workspace, [[String]]) {
        let space = try Workspace("cache-stress")
        for index in 0..<4 {
            try space.fixture(.quadrants(width: 1200 + 40 * index, height: 900), "s\(index).jpg", as: .jpeg)
        }
        let rows = (0..<count).map { row in
            ["s\(row % 4).jpg", String(40 + row), "out\(row % 3)/{name}-\(row).png"]
        }
        return (space, rows)
    }

    static func manifest(_ rows: [[String]]) -> String {
        CSV.manifest(["src", "size", "out"], rows)
    }

    /// An uninterrupted run of `rows` without a cache: the outputs every other run must match.
    static func reference(_ space: Workspace, _ rows: [[String]]) async throws -> [String: Data] {
        let out = space.folder.file("reference")
        let manifest = try space.folder.write(manifest(rows), to: "reference.csv")
        // A reference, not a race: 800 rows beside the whole suite on two cores took past the
        // default two minutes once; five still catch a run that hangs.
        let result = try await CLIRunner.run([manifest.path, "--out", out.path, "--no-cache"],
                                             timeout: .seconds(300))
        #expect(result.status == 0, "\(result.stderr)")
        return try CacheFiles.tree(out)
    }

    @Test("A run killed with SIGKILL mid-way, then run again, leaves the same outputs as an uninterrupted run")
    func killedAndRerun() async throws {
        // Long enough (one image at a time) that the kill lands mid-way even on a busy machine:
        // 200 rows took half a second, which a loaded machine could miss.
        let (space, rows) = try Self.workspace(rows: 800)
        let expected = try await Self.reference(space, rows)
        let manifest = try space.folder.write(Self.manifest(rows), to: "manifest.csv")
        let arguments = [manifest.path, "--out", space.out.path, "--jobs", "1"]

        let victim = try CLIRunner(arguments, cacheDirectory: space.cache)
        try victim.start()
        // Watched off the concurrency pool (see OffPool), so that a late wake-up cannot miss it.
        try await OffPool.run {
            let deadline = ContinuousClock.now + .seconds(60)
            // Whole outputs only: a temporary file being written is not one yet.
            while victim.isRunning && space.outputFiles.filter({ !$0.hasSuffix(".tmp") }).count < 3
                    && ContinuousClock.now < deadline {
                usleep(5_000)
            }
        }
        #expect(victim.isRunning, "the run ended before it could be killed; make it longer")
        victim.send(SIGKILL)
        let killed = await victim.wait(timeout: .seconds(10), killedBy: SIGKILL)
        #expect(killed.status == nil)
        let partial = space.outputFiles.filter { !$0.hasSuffix(".tmp") }.count
        #expect(partial >= 3 && partial < rows.count, "\(partial) outputs after the kill")

        let rerun = try await CLIRunner.run(arguments, cacheDirectory: space.cache)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try CacheFiles.tree(space.out) == expected)  // nothing missing, extra or stray

        // And the cache the killed run left is sound: a third run is all hits. (Its report asks
        // for no placeholders: the runs before made none, and it would render their outputs again.)
        let report = space.folder.file("third.json")
        let third = try await CLIRunner.run(arguments + ["--report", report.path, "--placeholders", "none"],
                                            cacheDirectory: space.cache)
        #expect(third.status == 0)
        #expect(try Report.read(report).summary.cache?["hit"] == rows.count)
    }

    @Test("Two processes over one cache at once, overlapping manifests, separate --out: both succeed, same bytes")
    func overlappingManifests() async throws {
        let (space, rows) = try Self.workspace()
        let expected = try await Self.reference(space, rows)
        let first = try space.folder.write(Self.manifest(Array(rows[0..<40])), to: "first.csv")
        let second = try space.folder.write(Self.manifest(Array(rows[20..<60])), to: "second.csv")
        let outA = space.folder.file("outA"), outB = space.folder.file("outB")
        let a = try CLIRunner([first.path, "--out", outA.path, "--jobs", "1"], cacheDirectory: space.cache)
        let b = try CLIRunner([second.path, "--out", outB.path, "--jobs", "1"], cacheDirectory: space.cache)
        try a.start()
        try b.start()
        let (resultA, resultB) = (await a.wait(timeout: .seconds(120)), await b.wait(timeout: .seconds(120)))
        #expect(resultA.status == 0, "\(resultA.stderr)")
        #expect(resultB.status == 0, "\(resultB.stderr)")
        let treeA = try CacheFiles.tree(outA), treeB = try CacheFiles.tree(outB)
        #expect(treeA.count == 40 && treeB.count == 40)
        #expect(treeA.allSatisfy { expected[$0.key] == $0.value },
                "differ: \(treeA.filter { expected[$0.key] != $0.value }.map { "\($0.key) \($0.value.count) vs \(expected[$0.key]?.count ?? -1)" })")
        #expect(treeB.allSatisfy { expected[$0.key] == $0.value })

        let full = try space.folder.write(Self.manifest(rows), to: "full.csv")
        let report = space.folder.file("full.json")
        // No placeholders asked: the runs before made none (a report wanting them would render
        // the outputs they are made from again).
        let all = try await CLIRunner.run([full.path, "--out", space.out.path, "--report", report.path,
                                           "--placeholders", "none"], cacheDirectory: space.cache)
        #expect(all.status == 0)
        #expect(try Report.read(report).summary.cache?["hit"] == rows.count)
        #expect(try CacheFiles.tree(space.out) == expected)
    }

    @Test("Two processes with the same manifest, one cache and one --out at once: both succeed, same bytes")
    func sameManifestSameOut() async throws {
        let (space, rows) = try Self.workspace()
        let expected = try await Self.reference(space, rows)
        let manifest = try space.folder.write(Self.manifest(rows), to: "manifest.csv")
        let arguments = [manifest.path, "--out", space.out.path, "--jobs", "1"]
        let a = try CLIRunner(arguments, cacheDirectory: space.cache)
        let b = try CLIRunner(arguments, cacheDirectory: space.cache)
        try a.start()
        try b.start()
        let (resultA, resultB) = (await a.wait(timeout: .seconds(120)), await b.wait(timeout: .seconds(120)))
        #expect(resultA.status == 0, "\(resultA.stderr)")
        #expect(resultB.status == 0, "\(resultB.stderr)")
        #expect(try CacheFiles.tree(space.out) == expected)
    }

    @Test("A run with URL rows while cache prune empties the cache again and again: every row written, nothing damaged")
    func pruneDuringRun() async throws {
        let (space, rows) = try Self.workspace(rows: 40)
        let expected = try await Self.reference(space, rows)
        let server = try FaultServer(root: space.folder.url)
        // Each source also by URL, into a folder of its own: the URL index is used (and pruned) too.
        let urlRows = (0..<4).map { index in
            [server.url("/img/s\(index).jpg"), "64", "byurl/{name}.png"]
        }
        let manifest = try space.folder.write(Self.manifest(rows + urlRows), to: "manifest.csv")
        let run = try CLIRunner([manifest.path, "--out", space.out.path, "--jobs", "1", "--allow-private-network"],
                                cacheDirectory: space.cache)
        try run.start()
        var prunes = 0
        while run.isRunning {
            let prune = try await CLIRunner.run(["cache", "prune", "--max-size", "0"], cacheDirectory: space.cache)
            #expect(prune.status == 0, "\(prune.stderr)")
            prunes += 1
        }
        let result = await run.wait(timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("warning"), "\(result.stderr)")
        #expect(prunes >= 1)
        let tree = try CacheFiles.tree(space.out)
        #expect(tree.filter { $0.key.hasPrefix("byurl/") }.count == 4)
        #expect(tree.filter { !$0.key.hasPrefix("byurl/") } == expected)

        let verify = try await CLIRunner.run(["cache", "verify"], cacheDirectory: space.cache)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("; removed 0 ("), "\(verify.stdout)")
    }
}
