import Foundation
import Testing
@testable import Thumbgen

/// `thumbgen explain`: the plan for a row and why, on a hit, on a miss after a recipe change
/// (naming the field), on a stale URL, and on a damaged entry; and that it touches nothing.
@Suite("Explain: what a row's plan is, and why")
struct ExplainTests {
    /// `explain --json` as its documented keys name it.
    struct Explained: Decodable {
        struct Part: Decodable { var name: String, value: String }
        struct OutputKey: Decodable {
            var digest: String
            var source: String
            var parts: [Part]
        }
        struct Cache: Decodable {
            var output: String?
            var source: String
        }
        struct Out: Decodable { var path: String, holds: Bool }
        struct Freshness: Decodable { var age: Double, lifetime: Double, lifetime_from: String, fresh: Bool, has_validators: Bool }
        struct Changed: Decodable { var since: String, parts: [ChangedPart] }
        struct ChangedPart: Decodable {
            var name: String
            var was: String?
            var now: String?
        }
        struct Failure: Decodable { var code: String, message: String }
        var row: Int, id: String, src: String, plan: String, reasons: [String]
        var key: OutputKey?
        var cache: Cache?
        var out: Out?
        var freshness: Freshness?
        var changed: Changed?
        var error: Failure?

        func part(_ name: String) -> String? { key?.parts.first { $0.name == name }?.value }
    }

    static func explain(_ space: Workspace, _ rows: [String], _ extra: [String] = [],
                        manifest: String = "manifest.csv") async throws -> (CLIResult, [Explained]) {
        let result = try await CLIRunner.run(
            ["explain", space.folder.file(manifest).path] + rows + ["--json", "--out", space.out.path] + extra,
            cacheDirectory: space.cache)
        let explained = (try? JSONDecoder().decode([Explained].self, from: Data(result.stdout.utf8))) ?? []
        return (result, explained)
    }

    @Test("A hit: keep, with the key's parts, the cache's state and the file under --out")
    func hit() async throws {
        let space = try Workspace("explain")
        try space.fixture(.quadrants(width: 120, height: 80), "a.png")
        // An hour old: a file changed within the last second is hashed on every run (its stamp
        // could hide a second change in the same clock tick), so it has no stamp on record.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)],
                                              ofItemAtPath: space.folder.file("a.png").path)
        let manifest = CSV.manifest(["id", "src", "size", "quality", "format"], [["hero", "a.png", "64", "80", "webp"]])
        #expect(try await space.run(manifest: manifest).status == 0)
        let (result, explained) = try await Self.explain(space, ["hero"])
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(explained.first)
        #expect(row.row == 2 && row.id == "hero" && row.plan == "keep")
        #expect(row.cache?.output == "present" && row.cache?.source == "stamp unchanged")
        #expect(row.out?.path == "a-64x43.webp" && row.out?.holds == true)
        #expect(row.part("size") == "64x" && row.part("quality") == "80" && row.part("format") == "webp")
        #expect(row.part("libvips") == VipsRuntime.version && row.part("recipe") == String(ThumbnailSpec.recipeVersion))
        #expect(row.part("source")?.count == 64 && row.key?.source == "known")
        #expect(row.changed == nil)

        // Looked up by its line number, the same row; the text form says the same.
        let (_, byLine) = try await Self.explain(space, ["2"])
        #expect(byLine.first?.key?.digest == row.key?.digest)
        let text = try await CLIRunner.run(["explain", space.folder.file("manifest.csv").path, "hero",
                                            "--out", space.out.path], cacheDirectory: space.cache)
        #expect(text.stdout.contains("plan: keep") && text.stdout.contains("quality         80"), "\(text.stdout)")
    }

    @Test("A miss after a recipe change names the field that changed, with both values")
    func recipeChange() async throws {
        let space = try Workspace("explain")
        try space.fixture(.quadrants(width: 120, height: 80), "a.png")
        let rows = [["a.png", "64", "80"], ["a.png", "32", "80"]]
        #expect(try await space.run(manifest: CSV.manifest(["src", "size", "quality"], rows)).status == 0)
        _ = try space.folder.write(CSV.manifest(["src", "size", "quality"], [["a.png", "64", "90"], ["a.png", "32", "80"]]),
                                   to: "manifest.csv")
        let (result, explained) = try await Self.explain(space, ["2", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let changed = try #require(explained.first)
        #expect(changed.plan == "render" && changed.cache?.output == "absent")
        // The nearest stored key is the 64 px one at quality 80, not the 32 px one.
        #expect(changed.changed?.parts.map(\.name) == ["quality"])
        #expect(changed.changed?.parts.first?.was == "80" && changed.changed?.parts.first?.now == "90")
        #expect(explained.last?.plan == "keep" && explained.last?.changed == nil)

        // A source whose bytes changed names the source.
        try space.fixture(.quadrants(width: 120, height: 81), "a.png")
        let (_, after) = try await Self.explain(space, ["3"])
        #expect(after.first?.plan == "render")
        #expect(after.first?.changed?.parts.map(\.name) == ["source"], "\(String(describing: after.first))")
    }

    @Test("A stale URL: the freshness arithmetic, revalidate, and the key its stored body would give")
    func staleURL() async throws {
        let space = try Workspace("explain-url")
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        let server = try FaultServer(root: space.folder.url)
        // No freshness headers: stored, and revalidated on every run (README, Cache).
        let manifest = CSV.manifest(["src", "size", "max_age"], [[server.url("/img/q.jpg"), "32", "0"]])
        #expect(try await space.run(manifest: manifest, ["--allow-private-network"]).status == 0)
        try server.resetCounts()
        let (result, explained) = try await Self.explain(space, ["2"])
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(explained.first)
        #expect(row.plan == "revalidate")
        #expect(row.freshness?.fresh == false && row.freshness?.lifetime == 0 && row.freshness?.has_validators == true)
        #expect(row.freshness?.lifetime_from == "headers" && (row.freshness?.age ?? -1) >= 0)
        #expect(row.reasons.contains { $0.contains("stale") && $0.contains("If-None-Match") }, "\(row.reasons)")
        #expect(row.cache?.source == "url stored" && row.key?.source == "stored")
        // It asked no server.
        #expect(try server.counts().total == 0)

        // The same row with a positive max_age is fresh by it.
        _ = try space.folder.write(CSV.manifest(["src", "size", "max_age"], [[server.url("/img/q.jpg"), "32", "3600"]]),
                                   to: "manifest.csv")
        let (_, fresh) = try await Self.explain(space, ["2"])
        #expect(fresh.first?.plan == "keep" && fresh.first?.freshness?.lifetime_from == "max_age")
        #expect(fresh.first?.freshness?.fresh == true && fresh.first?.freshness?.lifetime == 3600)
    }

    @Test("A damaged entry is reported and left as it is: a run drops it and renders")
    func damagedEntry() async throws {
        let space = try Workspace("explain")
        try space.fixture(.quadrants(width: 120, height: 80), "a.png")
        let manifest = CSV.manifest(["src", "size"], [["a.png", "64"], ["a.png", "32"]])
        let first = try await space.run(manifest: manifest)
        #expect(first.status == 0)
        try FileManager.default.removeItem(at: space.out)
        let files = CacheFiles(root: space.cache)
        // Row 2: its record damaged. Row 3: its bytes damaged.
        let (_, before) = try await Self.explain(space, ["2", "3"])
        let record = try #require(files.entries("outputs").first { $0.lastPathComponent == before.first?.key?.digest })
        try CacheFiles.flipByte(of: record, at: 30)
        let blob = files.blob(try #require(first.report?.row(3)?.sha256))
        try CacheFiles.flipByte(of: blob)
        let damaged = try Data(contentsOf: record), damagedBlob = try Data(contentsOf: blob)

        let (result, explained) = try await Self.explain(space, ["2", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(explained.map(\.plan) == ["render", "render"])
        #expect(explained.map { $0.cache?.output } == ["damaged_record", "damaged_bytes"])
        #expect(explained[0].reasons.last?.contains("record is damaged") == true)
        // Explain touched nothing: the damaged entries are still there, byte for byte.
        #expect(try Data(contentsOf: record) == damaged && (try Data(contentsOf: blob)) == damagedBlob)

        let run = try await space.run(manifest: manifest)
        #expect(run.report?.rows.map(\.cache) == ["miss", "miss"], "\(run.result.stderr)")
        let (_, after) = try await Self.explain(space, ["2", "3"])
        #expect(after.map(\.plan) == ["keep", "keep"])
    }

    @Test("A row the manifest refuses is planned fail with its error; a row not there is an error")
    func refusedAndMissingRows() async throws {
        let space = try Workspace("explain")
        _ = try space.folder.write(CSV.manifest(["src", "size"], [["a.png", "-3"], ["gone.png", "8"]]), to: "manifest.csv")
        let (result, explained) = try await Self.explain(space, ["2", "3"])
        #expect(result.status == 0)
        #expect(explained.map(\.plan) == ["fail", "fail"])
        #expect(explained.map { $0.error?.code } == ["invalid_row", "source_not_found"])
        let (missing, _) = try await Self.explain(space, ["2", "nope"])
        #expect(missing.status == 2 && missing.stderr.contains("no row nope"), "\(missing.stderr)")
    }
}
