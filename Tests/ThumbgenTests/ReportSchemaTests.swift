import Foundation
import Testing

/// Reports of every kind of run validate against `docs/report.schema.json`, and their summary
/// totals add up; `--events` tells each row's story in order; `--dry-run` touches nothing.
@Suite("Results: report schema, events, dry run")
struct ReportSchemaTests {
    static let schema = TestPaths.packageRoot.appendingPathComponent("docs/report.schema.json")

    /// The schema violations of the report at `url`, found by Python's `jsonschema` (Draft
    /// 2020-12); nil when the validator is not installed.
    static func violations(_ url: URL, schema: URL = schema) throws -> [String]? {
        let script = """
            import json, sys
            try:
                import jsonschema
            except ImportError:
                print("NO-VALIDATOR"); sys.exit(0)
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            for error in jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))):
                print("/".join(map(str, error.path)) + ": " + error.message[:200])
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schema.path, url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the validator failed: \(output)")
        if output.hasPrefix("NO-VALIDATOR") { return nil }
        return output.split(separator: "\n").map(String.init)
    }

    static var hasValidator: Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import jsonschema"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// The report at `url` as raw JSON.
    static func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test("Render (with failures and a URL), a cached rerun, warm, a dry run and --prune runs all validate; totals add up",
          .enabled(if: hasValidator, "needs python3-jsonschema (scripts/setup installs it)"))
    func reportsValidate() async throws {
        let (space, server) = try HTTPSourceTests.serve()
        let rows = [
            ["p.png", "a.png", ""], ["q.jpg", "b.webp", ""], ["missing.png", "c.png", ""],
            ["half.jpg", "d.png", ""], ["p.png", "e.png", "huge"], [server.url("/img/q.jpg"), "f.jpg", ""],
        ]
        let manifest = CSV.manifest(["src", "out", "size"], rows)
        let network = ["--allow-private-network", "--size", "32x32"]
        var reports: [(String, URL)] = []
        for (name, arguments) in [("first", network), ("second", network), ("dry", network + ["--dry-run"]),
                                    ("dry-prune", network + ["--dry-run", "--prune"]), ("prune", network + ["--prune"])] {
            let run = try await space.run(manifest: manifest, arguments)
            #expect(run.status == 1, "\(name): \(run.result.stderr)")
            let copy = space.folder.file("report-\(name).json")
            try FileManager.default.copyItem(at: space.reportURL, to: copy)
            reports.append((name, copy))
        }
        let warm = try await CLIRunner.run(
            ["warm", space.folder.file("manifest.csv").path, "--report", space.folder.file("report-warm.json").path]
                + network, cacheDirectory: space.cache)
        #expect(warm.status == 1, "\(warm.stderr)")
        reports.append(("warm", space.folder.file("report-warm.json")))

        for (name, url) in reports {
            let problems = try #require(try Self.violations(url))
            #expect(problems.isEmpty, "\(name): \(problems.joined(separator: "\n"))")
        }
        // --prune adds its list and count (nothing to remove here: every row is the same).
        for name in ["dry-prune", "prune"] {
            let raw = try Self.json(space.folder.file("report-\(name).json"))
            #expect((raw["pruned"] as? [Any])?.isEmpty == true, "\(name): \(String(describing: raw["pruned"]))")
            #expect((raw["summary"] as? [String: Any])?["pruned"] as? Int == 0, "\(name)")
        }
        #expect(try Self.json(reports[0].1)["pruned"] == nil)
        let first = try Report.read(reports[0].1)
        let raw = try Self.json(reports[0].1)
        let summary = try #require(raw["summary"] as? [String: Any])
        let bytes = try #require(summary["bytes"] as? [String: Any])
        let outSum = first.rows.compactMap(\.bytes).reduce(0, +)
        #expect(bytes["out"] as? Int == outSum)
        #expect((bytes["downloaded"] as? Int ?? 0) > 0)
        #expect((bytes["in"] as? Int ?? 0) > 0)
        #expect((summary["cpu_seconds"] as? Double ?? 0) > 0)
        #expect(first.summary.errors == ["source_not_found": 1, "decode_failed": 1, "invalid_row": 1])
        // A row that opened its source says what the source was.
        let rawRows = try #require(raw["rows"] as? [[String: Any]])
        let source = try #require(rawRows[0]["source"] as? [String: Any])
        #expect(source["width"] as? Int == 60 && source["format"] as? String == "png" && source["frames"] as? Int == 1)
        // The rerun took the local rows from the cache (the URL, sent without freshness
        // headers, is asked again); the dry run plans the local rows as already in place, the
        // broken file as a render (only a decode can tell), the URL as a fetch.
        let second = try Report.read(reports[1].1)
        #expect(second.summary.cache?["hit"] == 2)
        let dry = try Self.json(reports[2].1)
        let plans = try #require(dry["rows"] as? [[String: Any]]).compactMap { $0["plan"] as? String }
        #expect(plans == ["keep", "keep", "render", "fetch"], "\(plans)")
    }

    @Test("--events tells each row's story in order: started, loaded, then its status, as JSON lines")
    func events() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 80, height: 40), "a.png")
        let rows = [["a.png", "one.png", ""], ["a.png", "two.jpg", ""], ["nope.png", "x.png", ""], ["a.png", "y.png", "0x0"]]
        let eventsURL = space.folder.file("events.jsonl")
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size"], rows),
                                      ["--events", eventsURL.path])
        #expect(run.status == 1)
        let lines = try String(contentsOf: eventsURL, encoding: .utf8).split(separator: "\n")
        let events = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        func story(_ row: Int) -> [String] {
            events.filter { $0["row"] as? Int == row }.compactMap { $0["event"] as? String }
        }
        #expect(story(2) == ["started", "loaded", "written"])
        #expect(story(3) == ["started", "loaded", "written"])
        #expect(story(4) == ["started", "failed"])
        #expect(story(5) == ["failed"])  // refused by the manifest parser: never started
        let loaded = try #require(events.first { $0["event"] as? String == "loaded" })
        let source = try #require(loaded["source"] as? [String: Any])
        #expect(source["width"] as? Int == 80 && source["height"] as? Int == 40 && (source["bytes"] as? Int ?? 0) > 0)
        let written = try #require(events.first { $0["event"] as? String == "written" && $0["row"] as? Int == 2 })
        #expect(written["out"] as? String == "one.png" && written["width"] as? Int == 80)
        let failure = try #require(events.first { $0["row"] as? Int == 4 && $0["event"] as? String == "failed" })
        #expect((failure["error"] as? [String: Any])?["code"] as? String == "source_not_found")
        // Times never go backwards.
        let times = events.compactMap { $0["t"] as? Double }
        #expect(times.count == events.count && times == times.sorted())

        // `-` writes them to standard output.
        let stdout = try await space.run(manifest: CSV.manifest(["src", "out"], [["a.png", "z.png"]]), ["--events", "-", "--no-cache"])
        #expect(stdout.result.stdout.split(separator: "\n").count == 3, "\(stdout.result.stdout)")
    }

    @Test("--dry-run creates no folder, writes no output and no cache entry, and marks nothing used")
    func dryRunTouchesNothing() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 80, height: 40), "a.png")
        let manifest = CSV.manifest(["src", "out"], [["a.png", "a.png"], ["a.png", "b.jpg"], ["gone.png", "c.png"]])
        let dry = try await space.run(manifest: manifest, ["--dry-run"])
        #expect(dry.status == 1, "\(dry.result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: space.out.path))
        #expect(!FileManager.default.fileExists(atPath: space.cache.path))
        #expect(dry.report?.rows.map(\.status) == ["planned", "planned", "failed"])
        #expect(dry.result.stderr.contains("dry run, nothing touched: 3 rows: 0 already in place, 0 from the cache, 2 to render"))

        _ = try await space.run(manifest: manifest)
        try FileManager.default.removeItem(at: space.output("b.jpg"))
        let before = TemporaryDirectory.files(under: space.cache)
        // Push every cache entry's mark into the past, so that a read that marks use would show.
        let old = Date(timeIntervalSinceNow: -86_400)
        for file in before {
            try FileManager.default.setAttributes([.modificationDate: old],
                                                  ofItemAtPath: space.cache.appendingPathComponent(file).path)
        }
        let again = try await space.run(manifest: manifest, ["--dry-run", "-v"])
        #expect(again.result.stderr.contains("row 2: would keep a.png"), "\(again.result.stderr)")
        #expect(again.result.stderr.contains("row 3: would reuse b.jpg"), "\(again.result.stderr)")
        #expect(TemporaryDirectory.files(under: space.cache) == before)
        for file in before {
            let date = try FileManager.default.attributesOfItem(
                atPath: space.cache.appendingPathComponent(file).path)[.modificationDate] as? Date
            #expect(date.map { abs($0.timeIntervalSince(old)) < 2 } == true, "\(file) was touched")
        }
        #expect(!FileManager.default.fileExists(atPath: space.output("b.jpg").path))
    }
}
