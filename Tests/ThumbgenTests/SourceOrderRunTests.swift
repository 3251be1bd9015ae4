import Foundation
import Testing
@testable import Thumbgen

/// End to end: a source's rows are one decode wherever they stand in the manifest.
@Suite("Pipeline: one decode per source whatever the manifest's order")
struct SourceOrderRunTests {
    static let sizes = [40, 80, 120, 160]
    static let names = ["a", "b", "c", "d"]

    /// Four PNG sources, each painted differently.
    static func sources(_ space: Workspace) throws {
        for (index, name) in names.enumerated() {
            try space.fixture(RawImage(width: 320, height: 240) { x, y in
                Colour(r: UInt8((x * (index + 1)) % 256), g: UInt8((y * 3 + index * 40) % 256), b: UInt8((x + y) % 256))
            }, "\(name).png")
        }
    }

    /// A manifest of every source at every size, its rows in `order`.
    static func manifest(_ order: String) -> String {
        var rows = sizes.flatMap { size in names.map { (name: $0, size: size) } }  // sizes as the outer loop
        switch order {
        case "grouped": rows.sort { ($0.name, $0.size) < ($1.name, $1.size) }
        case "shuffled":
            var generator = PlanPropertyTests.SeededGenerator(state: 45)
            rows.shuffle(using: &generator)
        default: break
        }
        return "src,width,out\n" + rows.map { "\($0.name).png,\($0.size),\($0.name)-\($0.size).jpg\n" }.joined()
    }

    /// The `loaded` events of an `--events` log: each row's src and decode number.
    static func decodes(_ log: URL) throws -> [(src: String, decode: Int)] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard event["event"] as? String == "loaded" else { return nil }
            return (try #require(event["src"] as? String), try #require(event["decode"] as? Int))
        }
    }

    /// Runs `thumbgen MANIFEST --out OUT --no-cache --report R --events E` in `space`.
    static func run(_ space: Workspace, manifest: String, out: String, stdin: Data? = nil,
                    extra: [String] = []) async throws -> CLIResult {
        try await CLIRunner.run([manifest, "--out", out, "--no-cache", "--report", "\(out).json",
                                 "--events", "\(out).events"] + extra,
                                in: space.folder.url, stdin: stdin, cacheDirectory: space.cache)
    }

    /// Every output of `out`, by name, with its bytes.
    static func outputs(_ space: Workspace, _ out: String) throws -> [String: Data] {
        let folder = space.folder.file(out)
        var files: [String: Data] = [:]
        for name in TemporaryDirectory.files(under: folder) where !name.hasPrefix(".") {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    @Test("A manifest with its sizes as the outer loop, or shuffled, decodes each source once; the outputs are the grouped run's, byte for byte; the report is in manifest order",
          arguments: ["sizes-outer", "shuffled"])
    func order(_ order: String) async throws {
        let space = try Workspace("order")
        try Self.sources(space)
        try space.folder.write(Self.manifest("grouped"), to: "grouped.csv")
        try space.folder.write(Self.manifest(order), to: "other.csv")
        let grouped = try await Self.run(space, manifest: "grouped.csv", out: "grouped")
        let other = try await Self.run(space, manifest: "other.csv", out: "other", extra: ["--index", "other.index.json"])
        #expect(grouped.status == 0 && other.status == 0, "\(grouped.stderr)\n\(other.stderr)")

        let decodes = try Self.decodes(space.folder.file("other.events"))
        #expect(decodes.count == Self.sizes.count * Self.names.count)
        for name in Self.names {
            let numbers = Set(decodes.filter { $0.src == "\(name).png" }.map(\.decode))
            #expect(numbers.count == 1, "\(name).png decoded \(numbers.count) times")
        }
        #expect(Set(decodes.map(\.decode)).count == Self.names.count)

        let report = try Report.read(space.folder.file("other.json"))
        #expect(report.rows.map(\.row) == Array(2..<(2 + decodes.count)))
        // The index lists each source once, with its four sizes.
        let index = try ReportSchemaTests.json(space.folder.file("other.index.json"))
        let entries = try #require(index["sources"] as? [[String: Any]])
        #expect(Set(entries.compactMap { $0["src"] as? String }) == Set(Self.names.map { "\($0).png" }) && entries.count == 4)
        #expect(report.rows.allSatisfy { $0.status == "written" })
        let made = try Self.outputs(space, "other"), expected = try Self.outputs(space, "grouped")
        #expect(made.count == decodes.count && made.keys.sorted() == expected.keys.sorted())
        for (name, bytes) in expected { #expect(made[name] == bytes, "\(name) differs from the grouped run's") }
    }

    @Test("Standard input: rows within the window share their decode, and nothing is said of it")
    func standardInput() async throws {
        let space = try Workspace("order-stdin")
        try Self.sources(space)
        let run = try await Self.run(space, manifest: "-", out: "piped", stdin: Data(Self.manifest("sizes-outer").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        let decodes = try Self.decodes(space.folder.file("piped.events"))
        #expect(decodes.count == 16 && Set(decodes.map(\.decode)).count == Self.names.count)
        #expect(!run.stderr.contains("more than once"), "\(run.stderr)")
        let report = try Report.read(space.folder.file("piped.json"))
        #expect(report.rows.map(\.row) == Array(2...17))
    }

    @Test("Standard input: a source whose rows are further apart than the window is decoded again, and the summary says so")
    func standardInputSplit() async throws {
        let space = try Workspace("order-split")
        try Self.sources(space)
        // a.png, then a window's worth of rows that fail as they are read (a width that is
        // no number, each naming a source of its own), then a.png again.
        let filler = (0..<SourceWindow.defaultSize).map { "none\($0).png,wide,x\($0).jpg\n" }.joined()
        let manifest = "src,width,out\na.png,40,a-40.jpg\n" + filler + "a.png,80,a-80.jpg\n"
        let run = try await Self.run(space, manifest: "-", out: "piped", stdin: Data(manifest.utf8),
                                     extra: ["--fail-on", "never", "--progress", "never"])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(run.stderr.contains("1 source was decoded more than once"), "\(run.stderr.suffix(2000))")
        let decodes = try Self.decodes(space.folder.file("piped.events"))
        #expect(decodes.count == 2 && Set(decodes.map(\.decode)).count == 2)
        let report = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: space.folder.file("piped.json"))) as? [String: Any])
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["split_sources"] as? Int == 1)
        #expect(summary["written"] as? Int == 2 && summary["failed"] as? Int == SourceWindow.defaultSize)
    }

    @Test("--drop-larger weighs every row of a source, though the manifest puts its formats and sizes apart")
    func dropLargerApart() async throws {
        let space = try SourceWeightTests.photos()
        var rows: [String] = []
        for format in ["webp", "avif", "jpeg"] {
            for size in [160, 320] {
                for name in ["noise", "smooth"] { rows.append("photos/\(name).png,\(size),\(format),\(name)-\(size).\(format)") }
            }
        }
        try space.folder.write("src,size,format,out\n" + rows.joined(separator: "\n") + "\n", to: "apart.csv")
        let run = try await CLIRunner.run(["apart.csv", "--out", "out", "--quality", "90", "--drop-larger",
                                           "--report", "report.json"],
                                          in: space.folder.url, cacheDirectory: space.cache)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Report.read(space.folder.file("report.json"))
        let dropped = report.rows.filter { $0.status == "dropped" }
        #expect(dropped.map(\.format) == ["avif", "avif"] && dropped.allSatisfy { $0.src.hasSuffix("noise.png") },
                "\(dropped.map { "\($0.src) \($0.format ?? "")" })")
        #expect(report.rows.map(\.row) == Array(2...13))
        #expect(!space.outputFiles.contains { $0.hasPrefix("noise") && $0.hasSuffix(".avif") }, "\(space.outputFiles)")
    }
}
