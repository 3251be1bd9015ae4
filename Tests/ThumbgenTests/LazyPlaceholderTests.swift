import Crypto
import Foundation
import Testing

/// Placeholders only where someone asked for them: a run without `--report`, `--index` or
/// `--placeholders` makes none, and the cache record of the output a source's placeholder is
/// made from says it owes one; a later run that wants it renders that output again and gets
/// the placeholder a run that asked from the start gets. Outputs are the same bytes either way.
@Suite("Placeholders made only when asked for")
struct LazyPlaceholderTests {
    /// Every kind, so that each is compared.
    static let kinds = ["--placeholders", "dominant,lqip,thumbhash"]

    /// Four sources in a manifest: an opaque PNG, a JPEG, a PNG with alpha and an animated GIF,
    /// each at two or three sizes and several formats (AVIF and animations among them).
    static func prepare(_ space: Workspace) throws {
        try space.fixture(.quadrants(width: 1600, height: 1000), "hero.png")
        try space.fixture(.quadrants(width: 900, height: 900, [.blue, .blue, .blue, .yellow]), "square.jpg", as: .jpeg)
        let clear = Colour(r: 255, g: 255, b: 255, a: 0)
        try space.fixture(RawImage(width: 300, height: 200, alpha: true) { x, _ in x >= 150 ? .green : clear }, "clear.png")
        let strip = RawImage(width: 120, height: 240) { _, y in [Colour.red, .green, .blue][y / 80] }
        _ = try space.folder.write(try strip.encodedAnimation(pageHeight: 80, as: .gif), to: "frames.gif")
        let rows = [
            ["hero.png", "hero-a.webp", "64", "false"], ["hero.png", "hero-b.jpg", "64", "false"],
            ["hero.png", "hero-c.webp", "320", "false"], ["hero.png", "hero-d.png", "320", "false"],
            ["square.jpg", "square-a.jpg", "96", "false"], ["square.jpg", "square-b.webp", "200", "false"],
            ["square.jpg", "square-c.avif", "200", "false"],
            ["clear.png", "clear-a.png", "50", "false"], ["clear.png", "clear-b.webp", "150", "false"],
            ["frames.gif", "frames-a.webp", "40", "true"], ["frames.gif", "frames-b.gif", "80", "true"],
            ["frames.gif", "frames-c.png", "60", "false"],
        ]
        _ = try space.folder.write(CSV.manifest(["src", "out", "size", "animated"], rows), to: "manifest.csv")
    }

    /// `thumbgen render manifest.csv --out out` in `space` with `arguments`.
    static func render(_ space: Workspace, _ arguments: [String],
                       sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> CLIResult {
        let run = try await CLIRunner.run(["render", "manifest.csv", "--out", "out"] + arguments,
                                          in: space.folder.url, cacheDirectory: space.cache,
                                          sourceLocation: sourceLocation)
        #expect(run.status == 0, "\(arguments): \(run.stderr)", sourceLocation: sourceLocation)
        return run
    }

    /// The SHA-256 of every file under `space`'s `out/`, by path.
    static func outputs(_ space: Workspace) throws -> [String: String] {
        var digests: [String: String] = [:]
        for path in space.outputFiles {
            let digest = SHA256.hash(data: try Data(contentsOf: space.output(path)))
            digests[path] = digest.map { String(format: "%02x", $0) }.joined()
        }
        return digests
    }

    /// The rows `--events` at `url` says were `loaded` (their source decoded).
    static func loadedRows(_ url: URL) throws -> Set<Int> {
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        var rows: Set<Int> = []
        for line in lines {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if event["event"] as? String == "loaded", let row = event["row"] as? Int { rows.insert(row) }
        }
        return rows
    }

    @Test("A run without --report, --index or --placeholders makes none and its record owes it; a later --report run renders that output again (a cache miss, a decode in --events; --dry-run says render) for the very placeholder a run with --report from the start makes; outputs are byte-identical to that run's",
          arguments: ["workers", "none"])
    func filledByRenderingAgain(isolation: String) async throws {
        let lazy = try Workspace("lazy-placeholders")
        let eager = try Workspace("eager-placeholders")
        try Self.prepare(lazy)
        try Self.prepare(eager)
        let mode = ["--isolation", isolation]

        // With --report from the start: as before, one placeholder a source.
        _ = try await Self.render(eager, mode + ["--report", "report.json"] + Self.kinds)
        let cold = try Report.read(eager.folder.file("report.json")).rows
        let carrying = Set(cold.filter { $0.placeholder != nil }.compactMap(\.out))
        #expect(carrying == ["hero-a.webp", "square-a.jpg", "clear-a.png", "frames-a.webp"], "\(carrying)")
        #expect(cold.allSatisfy { $0.cache == "miss" })

        // Without: the same bytes. A second plain run, once the files have stood still, puts
        // the rows in the warm journal, which must not vouch for a record owing its placeholder.
        _ = try await Self.render(lazy, mode)
        let plainOutputs = try Self.outputs(lazy)
        let eagerOutputs = try Self.outputs(eager)
        #expect(plainOutputs.count == cold.count && plainOutputs == eagerOutputs)
        try await WarmJournalTests.settle()
        _ = try await Self.render(lazy, mode)

        let dry = try await Self.render(lazy, mode + ["--dry-run", "--report", "dry.json"] + Self.kinds)
        let planned = try Report.read(lazy.folder.file("dry.json")).rows
        let owing = Set(cold.filter { $0.placeholder != nil }.map(\.row))
        #expect(Set(planned.filter { $0.plan == "render" }.map(\.row)) == owing, "\(dry.stderr)")
        #expect(planned.filter { !owing.contains($0.row) }.allSatisfy { $0.plan == "keep" })

        // Wanted now: the rows that owe are rendered again, the others served.
        _ = try await Self.render(lazy, mode + ["--report", "report.json", "--events", "events.jsonl"] + Self.kinds)
        let filled = try Report.read(lazy.folder.file("report.json")).rows
        let rendered = filled.filter { $0.cache == "miss" }
        #expect(Set(rendered.compactMap(\.out)) == carrying, "\(filled.map { ($0.out, $0.cache) })")
        #expect(try Self.loadedRows(lazy.folder.file("events.jsonl")) == Set(rendered.map(\.row)))
        #expect(filled.filter { $0.cache == "hit" }.count == cold.count - carrying.count)
        for row in cold {
            #expect(filled.first { $0.out == row.out }?.placeholder == row.placeholder, "\(row.out ?? "")")
        }
        #expect(try Self.outputs(lazy) == plainOutputs)

        // Once filled, the cache serves them: nothing rendered, the same placeholders.
        _ = try await Self.render(lazy, mode + ["--report", "report.json"] + Self.kinds)
        let again = try Report.read(lazy.folder.file("report.json")).rows
        #expect(again.allSatisfy { $0.cache == "hit" }, "\(again.map { ($0.out, $0.cache) })")
        #expect(again.map(\.placeholder) == filled.map(\.placeholder))
    }

    @Test("--placeholders naming kinds makes them without a report (kept for a later run); --report with --placeholders none makes none")
    func namedWithoutReport() async throws {
        let space = try Workspace("named-placeholders")
        let eager = try Workspace("named-placeholders-eager")
        try Self.prepare(space)
        try Self.prepare(eager)
        _ = try await Self.render(eager, ["--report", "report.json"] + Self.kinds)
        let cold = try Report.read(eager.folder.file("report.json")).rows

        // A report that asks for none: none reported, none made.
        _ = try await Self.render(space, ["--report", "report.json", "--placeholders", "none"])
        #expect(try Report.read(space.folder.file("report.json")).rows.allSatisfy { $0.placeholder == nil })

        // Named without a report: the outputs that owe are rendered again (decoded), for the cache.
        _ = try await Self.render(space, ["--placeholders", "thumbhash", "--events", "events.jsonl"])
        let decoded = try Self.loadedRows(space.folder.file("events.jsonl"))
        #expect(decoded == Set(cold.filter { $0.placeholder != nil }.map(\.row)), "\(decoded)")

        // A report now: all from the cache, every kind there.
        _ = try await Self.render(space, ["--report", "report.json", "--events", "events.jsonl"] + Self.kinds)
        #expect(try Self.loadedRows(space.folder.file("events.jsonl")).isEmpty)
        let served = try Report.read(space.folder.file("report.json")).rows
        #expect(served.allSatisfy { $0.cache == "hit" })
        #expect(served.map(\.placeholder) == cold.map(\.placeholder))
    }
}
