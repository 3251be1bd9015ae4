import Foundation
import Testing
@testable import Thumbgen

/// `--shard I/N` end to end: N shard processes write what one process writes, each row is in
/// exactly one shard's report, and `thumbgen report merge` gives back the single run's report.
@Suite("Sharding: --shard runs and report merge")
struct ShardRunTests {
    /// Eight sizes of fifty sources, a missing source and a bad size: 402 rows.
    static func bigManifest(_ space: Workspace) throws -> String {
        try ShardHarness.manifest(in: space, sources: 50, sizes: [8, 12, 16, 20, 24, 28, 32, 40],
                                  extra: [["img/gone.png", "16x16", "t/gone.png"], ["img/s1.jpg", "huge", "t/bad.png"]])
    }

    @Test("Four shard processes write the single run's tree byte for byte; each row is in one shard's report; the merge is the single report")
    func fourShardsMatchOneProcess() async throws {
        let space = try Workspace("shards")
        let manifest = try space.folder.write(try Self.bigManifest(space), to: "manifest.csv")
        let single = try await CLIRunner.run([manifest.path, "--out", space.out.path, "--report",
                                              space.reportURL.path], cacheDirectory: space.cache, timeout: .seconds(300))
        #expect(single.status == 1, "\(single.stderr)")  // the two bad rows

        let shardOut = space.folder.file("out-shards")
        let reports = (0..<4).map { space.folder.file("r\($0).json") }
        let runs = try await ShardHarness.runAll(4, in: space) { k in
            [manifest.path, "--out", shardOut.path, "--report", reports[k].path, "--shard", "\(k)/4"]
        }
        for (k, run) in runs.enumerated() {
            #expect(run.status == 0 || run.status == 1, "shard \(k): \(run.stderr)")
            #expect(run.stderr.contains("shard \(k)/4: "), "\(run.stderr)")
        }
        let expected = try CacheFiles.tree(space.out)
        #expect(expected.count == 400)
        let together = try CacheFiles.tree(shardOut)
        #expect(together.keys.sorted() == expected.keys.sorted())
        #expect(together == expected, "the shards' tree differs from the single run's")

        // Each row in exactly one report, the one its source hashes to; each report says which
        // shard it is and names the manifest by its SHA-256.
        let manifestSHA = try ShardHarness.sha256(manifest)
        var seen: [Int: Int] = [:]
        for (k, url) in reports.enumerated() {
            let raw = try ReportSchemaTests.json(url)
            let shard = try #require(raw["shard"] as? [String: Any])
            #expect(shard["index"] as? Int == k && shard["count"] as? Int == 4)
            #expect(shard["manifest_sha256"] as? String == manifestSHA)
            let report = try Report.read(url)
            #expect(report.summary.rows == report.rows.count)
            #expect(!report.rows.isEmpty)
            for row in report.rows {
                #expect(seen.updateValue(k, forKey: row.row) == nil, "row \(row.row) in two shards")
                #expect(Shard.index(ofSource: row.src, count: 4) == k)
            }
        }
        let singleReport = try Report.read(space.reportURL)
        #expect(seen.keys.sorted() == singleReport.rows.map(\.row))
        // A source's rows stay together: one decode each, in one shard.
        let sourcesPerShard = Dictionary(grouping: singleReport.rows, by: \.src).mapValues { Set($0.map { seen[$0.row] }) }
        #expect(sourcesPerShard.values.allSatisfy { $0.count == 1 })

        let merged = space.folder.file("merged.json")
        let sheet = space.folder.file("sheet.html")
        let merge = try await CLIRunner.run(["report", "merge"] + reports.reversed().map(\.path)
                                            + ["-o", merged.path, "--html", sheet.path, "--out", shardOut.path])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try ShardHarness.rows(merged) == ShardHarness.rows(space.reportURL))
        #expect(try ShardHarness.summary(merged) == ShardHarness.summary(space.reportURL))
        let mergedRaw = try ReportSchemaTests.json(merged)
        #expect((mergedRaw["merged"] as? [String: Any])?["manifest_sha256"] as? String == manifestSHA)
        let page = try String(contentsOf: sheet, encoding: .utf8)
        #expect(page.components(separatedBy: "data-row=\"").count - 1 == 402)
        if ReportSchemaTests.hasValidator {
            for url in reports + [merged] {
                let problems = try #require(try ReportSchemaTests.violations(url))
                #expect(problems.isEmpty, "\(url.lastPathComponent): \(problems.joined(separator: "\n"))")
            }
        }
    }

    @Test("One row, four shards: three have nothing (status 0, an empty report) and the four still merge")
    func oneRowFourShards() async throws {
        let space = try Workspace("shard-one")
        try space.fixture(.quadrants(width: 80, height: 40), "a.png")
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], [["a.png", "a.webp"]]), to: "manifest.csv")
        let single = try await space.run(manifest: CSV.manifest(["src", "out"], [["a.png", "a.webp"]]))
        #expect(single.status == 0)
        let owner = Shard.index(ofSource: "a.png", count: 4)
        let reports = (0..<4).map { space.folder.file("r\($0).json") }
        let sheets = (0..<4).map { space.folder.file("sheet\($0).html") }
        let runs = try await ShardHarness.runAll(4, in: space) { k in
            [manifest.path, "--out", space.folder.file("out-shards").path, "--report", reports[k].path,
             "--html", sheets[k].path, "--shard", "\(k)/4"]
        }
        for (k, run) in runs.enumerated() {
            #expect(run.status == 0, "shard \(k): \(run.stderr)")
            let report = try Report.read(reports[k])
            #expect(report.rows.count == (k == owner ? 1 : 0))
            #expect(report.summary.rows == report.rows.count)
            // --html per shard: the page shows that shard's rows.
            let page = try String(contentsOf: sheets[k], encoding: .utf8)
            #expect(page.components(separatedBy: "data-row=\"").count - 1 == report.rows.count)
        }
        let merged = space.folder.file("merged.json")
        let merge = try await CLIRunner.run(["report", "merge"] + reports.map(\.path) + ["-o", merged.path])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(try ShardHarness.rows(merged) == ShardHarness.rows(space.reportURL))
        #expect(try ShardHarness.summary(merged) == ShardHarness.summary(space.reportURL))
    }

    @Test("The merge sums the cache writes each shard had refused (cache.not_stored), which no row carries")
    func mergeSumsRefusedWrites() async throws {
        let space = try Workspace("shard-refused")
        let manifest = try space.folder.write(try ShardHarness.manifest(in: space, sources: 4, sizes: [16]),
                                              to: "manifest.csv")
        let reports = (0..<2).map { space.folder.file("r\($0).json") }
        let runs = try await ShardHarness.runAll(2, in: space) { k in
            [manifest.path, "--out", space.folder.file("out").path, "--report", reports[k].path,
             "--cache-dir", space.folder.file("cache").path, "--shard", "\(k)/2"]
        }
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        // A full cache file system is needed to refuse writes for real (CacheFullTests); here
        // each shard's summary says it had, as such a run's would.
        for (k, report) in reports.enumerated() {
            let text = try String(contentsOf: report, encoding: .utf8)
            let patched = text.replacingOccurrences(of: "\"cache\":{", with: "\"cache\":{\"not_stored\":\(k + 2),")
            #expect(patched != text, "shard \(k)'s report has no cache summary")
            try patched.write(to: report, atomically: true, encoding: .utf8)
        }
        let merged = space.folder.file("merged.json")
        let outcome = try ReportMerge.merge(reports.map(\.path), into: merged.path,
                                            outputDirectory: space.folder.file("out"))
        #expect(outcome.summary.cache?.notStored == 5)
        let summary = try ShardHarness.summary(merged)
        #expect((summary["cache"] as? NSDictionary)?["not_stored"] as? Int == 5)
    }

    @Test("A dry run and warm take --shard too; their shards merge")
    func dryRunAndWarm() async throws {
        let space = try Workspace("shard-dry")
        let manifest = try space.folder.write(try ShardHarness.manifest(in: space, sources: 6, sizes: [16, 24]),
                                              to: "manifest.csv")
        for (label, command) in [("dry", [manifest.path, "--out", space.out.path, "--dry-run"]),
                                 ("warm", ["warm", manifest.path])] {
            let reports = (0..<2).map { space.folder.file("\(label)\($0).json") }
            let runs = try await ShardHarness.runAll(2, in: space) { k in
                command + ["--report", reports[k].path, "--shard", "\(k)/2"]
            }
            #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
            let merged = space.folder.file("\(label)-merged.json")
            let merge = try await CLIRunner.run(["report", "merge"] + reports.map(\.path) + ["-o", merged.path])
            #expect(merge.status == 0, "\(merge.stderr)")
            let rows = try Report.read(merged).rows
            #expect(rows.count == 12 && rows.map(\.row) == Array(2...13))
            #expect(rows.allSatisfy { label == "dry" ? $0.plan == "render" : $0.warm == "rendered" })
        }
    }

    @Test("Merging refuses other manifests, a shard twice, other counts, a missing shard and a whole run's report, naming the files")
    func mergeRefuses() async throws {
        let space = try Workspace("shard-refuse")
        try space.fixture(.quadrants(width: 40, height: 40), "a.png")
        let rows = (0..<8).map { ["a\($0 % 3).png", "o\($0).png"] }
        for k in 0..<3 { try space.fixture(.quadrants(width: 40, height: 40), "a\(k).png") }
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], rows), to: "m.csv")
        let other = try space.folder.write(CSV.manifest(["src", "out"], rows + [["a.png", "x.png"]]), to: "other.csv")
        func report(_ path: URL, _ shard: String, _ name: String) async throws -> String {
            let url = space.folder.file(name)
            let run = try await CLIRunner.run([path.path, "--out", space.out.path, "--report", url.path]
                                              + (shard.isEmpty ? [] : ["--shard", shard]), cacheDirectory: space.cache)
            #expect(run.status == 0, "\(run.stderr)")
            return url.path
        }
        let (a0, a1) = (try await report(manifest, "0/2", "a0.json"), try await report(manifest, "1/2", "a1.json"))
        let b1 = try await report(other, "1/2", "b1.json")
        let c0 = try await report(manifest, "0/3", "c0.json")
        let whole = try await report(manifest, "", "whole.json")
        let target = space.folder.file("merged.json").path
        func refusal(_ inputs: [String]) async throws -> String {
            let run = try await CLIRunner.run(["report", "merge"] + inputs + ["-o", target])
            #expect(run.status == 2, "\(inputs): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target))
            return run.stderr
        }
        #expect(try await refusal([a0, b1]).contains("\(a0) and \(b1) are reports of different manifests"))
        #expect(try await refusal([a0, a1, a0]).contains("\(a0) and \(a0) are both reports of shard 0"))
        #expect(try await refusal([a0, c0]).contains("\(a0) is a shard of 2 and \(c0) a shard of 3"))
        #expect(try await refusal([a1]).contains("no report of shard 0 of 2"))
        #expect(try await refusal([whole, a0]).contains("\(whole): not a shard's report"))
        let cut = try space.folder.write(Data(try Data(contentsOf: URL(fileURLWithPath: a0)).prefix(40)), to: "cut.json")
        #expect(try await refusal([cut.path, a1]).contains("\(cut.path): not a thumbgen report"))
        // The temporary of the merged report is gone too.
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: space.folder.url.path)).contains { $0.contains("merged") })
    }

    @Test("--shard errors stop the run with status 2 before any row, naming the option or variable")
    func shardErrors() async throws {
        let space = try Workspace("shard-errors")
        try space.fixture(.quadrants(width: 40, height: 40), "a.png")
        let manifest = CSV.manifest(["src", "out"], [["a.png", "a.png"]])
        let cases: [([String], [String: String], String)] = [
            (["--shard", "4/4"], [:], "the index is 4; with 4 shards it must be 0 to 3"),
            (["--shard", "1of4"], [:], "expected I/N"),
            (["--shard", "auto/4"], ["JOB_COMPLETION_INDEX": "7"], "JOB_COMPLETION_INDEX=7"),
            (["--shard", "auto"], ["AWS_BATCH_JOB_ARRAY_INDEX": "1"], "write --shard auto/N"),
        ]
        for (arguments, environment, message) in cases {
            let run = try await space.run(manifest: manifest, arguments, environment: environment)
            #expect(run.status == 2, "\(arguments): \(run.result.stderr)")
            #expect(run.result.stderr.contains(message), "\(run.result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: space.out.path))
        }
    }
}
