import Foundation
import Testing
@testable import Thumbgen

/// The `shrink_on_load` column (`--shrink-on-load` its default): how far a JPEG shrinks while
/// it decodes, per mode; that the mode is in
/// the output's key; and that a row's bytes stay its own when rows of other modes share its
/// source's decode.
@Suite("Shrink-on-load modes")
struct ShrinkOnLoadTests {
    @Test("The DCT factor each mode picks for a source `shrink` times the output", arguments: [
        // shrink, exact, balanced, fast
        (1.5, 1, 1, 1), (1.99, 1, 1, 1), (2.0, 1, 2, 2), (3.125, 1, 2, 2), (3.99, 1, 2, 2),
        (4.0, 2, 2, 4), (7.99, 2, 2, 4), (8.0, 4, 4, 8), (15.9, 4, 4, 8), (16.0, 8, 8, 8), (100.0, 8, 8, 8),
    ])
    func factors(shrink: Double, exact: Int, balanced: Int, fast: Int) {
        let scale = 1 / shrink
        #expect(ShrinkOnLoad.jpegFactor(requiredScale: scale, mode: .exact) == exact)
        #expect(ShrinkOnLoad.jpegFactor(requiredScale: scale, mode: .balanced) == balanced)
        #expect(ShrinkOnLoad.jpegFactor(requiredScale: scale, mode: .fast) == fast)
        #expect(ShrinkOnLoad.loadedScale(loader: "jpegload", requiredScale: scale, mode: .balanced)
                == 1 / Double(balanced))
        // Other loaders do not depend on the mode.
        #expect(ShrinkOnLoad.loadedScale(loader: "pngload", requiredScale: scale, mode: .fast) == 1)
    }

    /// `width` px of an 800×500 noise JPEG with `mode`, rendered through a pipeline together
    /// with `others` (width, mode) submitted before it; its bytes.
    static func render(_ width: Int, _ mode: ShrinkOnLoadMode, after others: [(Int, ShrinkOnLoadMode)])
        throws -> Data
    {
        let h = try DecodeSharingTests.Harness()
        // Noise: flat colours come out alike whatever the decode scale; detail does not.
        let jpeg = try StageTimeoutTests.noise(width: 800, height: 500).encoded(as: .jpeg)
        let source = Thumbgen.SourceLocation.file(try h.folder.write(jpeg, to: "a.jpg").path)
        for (index, (otherWidth, otherMode)) in (others + [(width, mode)]).enumerated() {
            var request = h.request(index + 2, source, width: otherWidth, out: "row\(index).jpg")
            request.spec.shrinkOnLoad = otherMode
            h.pipeline.submit(request)
        }
        h.pipeline.waitUntilFinished()
        #expect(h.results.allSatisfy { $0.status == .written }, "\(h.results)")
        return try Data(contentsOf: h.folder.file("out/row\(others.count).jpg"))
    }

    @Test("Rows of different modes that load at one scale share it, and each row's bytes are its own")
    func mixedModesShareADecode() throws {
        // 256 px balanced (shrink 3.1) and 160 px exact (shrink 5) both load at ½; the exact
        // row goes first, so a group that took the first row's mode with the largest row's
        // scale would decode the 256 px row in full.
        let alone = try Self.render(256, .balanced, after: [])
        let beside = try Self.render(256, .balanced, after: [(160, .exact)])
        #expect(alone == beside, "the balanced row's bytes changed with an exact row beside it")
        let exact = try Self.render(256, .exact, after: [])
        #expect(exact != alone, "exact and balanced decoded this row at the same scale")
    }

    @Test("The mode is part of the output's key: explain names it when it changes")
    func modeInKey() async throws {
        let space = try Workspace("shrink-on-load")
        try space.fixture(StageTimeoutTests.noise(width: 800, height: 500), "a.jpg", as: .jpeg)
        let manifest = CSV.manifest(["src", "size", "out"], [["a.jpg", "256", "a.jpg"]])
        #expect(try await space.run(manifest: manifest).status == 0)
        let balanced = try Data(contentsOf: space.output("a.jpg"))

        let (result, explained) = try await ExplainTests.explain(space, ["2"], ["--shrink-on-load", "exact"])
        #expect(result.status == 0, "\(result.stderr)")
        let change = try #require(explained.first?.changed?.parts.first, "\(explained)")
        #expect(explained.first?.changed?.parts.count == 1)
        #expect(change.name == "shrink_on_load" && change.was == "balanced" && change.now == "exact")

        let run = try await space.run(manifest: manifest, ["--shrink-on-load", "exact"])
        #expect(run.status == 0 && run.report?.rows.first?.status == "written", "\(run.result.stderr)")
        #expect(try Data(contentsOf: space.output("a.jpg")) != balanced)
    }

    @Test("An unknown mode exits 2, naming the flag and the modes")
    func unknownMode() async throws {
        let space = try Workspace("shrink-on-load")
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let run = try await space.run(manifest: "src\na.png\n", ["--shrink-on-load", "sharp"])
        #expect(run.status == 2)
        #expect(run.result.stderr.contains("--shrink-on-load"), "\(run.result.stderr)")
        #expect(run.result.stderr.contains("exact") && run.result.stderr.contains("balanced"))
        #expect(space.outputFiles.isEmpty)
    }

    @Test("The column picks a row's mode, the flag is its default, and a bad cell fails its row only")
    func columnPerRow() async throws {
        let space = try Workspace("shrink-on-load")
        try space.fixture(StageTimeoutTests.noise(width: 800, height: 500), "a.jpg", as: .jpeg)
        // The flag alone: every row exact.
        let flagged = CSV.manifest(["src", "size", "out"], [["a.jpg", "256", "flag.jpg"]])
        #expect(try await space.run(manifest: flagged, ["--shrink-on-load", "exact"]).status == 0)
        let exactByFlag = try Data(contentsOf: space.output("flag.jpg"))

        let manifest = CSV.manifest(["src", "size", "out", "shrink-on-load"], [
            ["a.jpg", "256", "exact.jpg", "exact"],
            ["a.jpg", "256", "default.jpg", ""],
            ["a.jpg", "256", "bad.jpg", "sharp"],
        ])
        let run = try await space.run(manifest: manifest)
        #expect(run.status == 1, "\(run.result.stderr)")
        let rows = try #require(run.report?.rows)
        #expect(rows.map(\.status) == ["written", "written", "failed"], "\(rows)")
        #expect(rows.last?.error?.code == "invalid_row")
        #expect(rows.last?.error?.message.contains("shrink_on_load") == true, "\(String(describing: rows.last?.error))")
        let exactByColumn = try Data(contentsOf: space.output("exact.jpg"))
        let sameAsFlag = exactByColumn == exactByFlag
        #expect(sameAsFlag, "the column's exact row differs from the flag's")
        let differs = try Data(contentsOf: space.output("default.jpg")) != exactByColumn
        #expect(differs, "the row without a cell did not take the default, balanced")
        #expect(!FileManager.default.fileExists(atPath: space.output("bad.jpg").path))

        // A row's cell wins over the flag.
        let again = CSV.manifest(["src", "size", "out", "shrink_on_load"], [["a.jpg", "256", "won.jpg", "balanced"]])
        #expect(try await space.run(manifest: again, ["--shrink-on-load", "exact"]).status == 0)
        let won = try Data(contentsOf: space.output("won.jpg")) == Data(contentsOf: space.output("default.jpg"))
        #expect(won, "the flag overrode the row's cell")
    }
}
