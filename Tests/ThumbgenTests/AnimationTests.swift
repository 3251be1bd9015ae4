import Foundation
import Testing
import Thumbgen

/// Animated GIF and WebP: the first frame by default; every frame, each scaled alike, when the
/// row asks and the output format can animate.
@Suite("End to end: animation")
struct AnimationTests {
    static func corpus(_ relative: String) throws -> String {
        try #require(TestPaths.corpora).appendingPathComponent(relative).path
    }

    @Test("An animated GIF keeps all 31 frames with animated=true, and only the first without",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func gif() async throws {
        let space = try Workspace()
        let chi = try Self.corpus("pillow/Tests/images/chi.gif")  // 320×240, 31 frames
        let rows = [
            [chi, "all.gif", "true"], [chi, "first.gif", ""], [chi, "all.webp", "true"],
            [chi, "still.png", "true"], [chi, "first.webp", "false"],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "animated"], rows),
                                      ["--size", "100x100"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        #expect(report.row(2)?.width == 100 && report.row(2)?.height == 75)

        let all = try ImageFacts.read(space.output("all.gif"))
        #expect(all.frames == 31 && all.width == 100 && all.height == 75, "\(all)")
        // Each frame is its own source frame, scaled: their mean brightness matches frame by frame.
        let sourceMeans = try ImageFacts.frameMeans(URL(fileURLWithPath: chi))
        let outputMeans = try ImageFacts.frameMeans(space.output("all.gif"))
        #expect(sourceMeans.count == 31 && outputMeans.count == 31)
        for (index, (a, b)) in zip(sourceMeans, outputMeans).enumerated() {
            #expect(abs(a - b) < 4, "frame \(index): source mean \(a), output \(b)")
        }
        #expect(Set(outputMeans.map { Int($0) }).count > 1, "the frames differ")

        // WebP's encoder merges identical neighbouring frames, so only "more than one" is fixed.
        let webp = try ImageFacts.read(space.output("all.webp"))
        #expect(webp.frames > 1 && webp.width == 100 && webp.height == 75, "\(webp)")
        for name in ["first.gif", "still.png", "first.webp"] {
            let facts = try ImageFacts.read(space.output(name))
            #expect(facts.frames == 1 && facts.width == 100 && facts.height == 75, "\(name): \(facts)")
        }
    }

    @Test("An animated WebP keeps its frames as WebP and as GIF, cropped alike with cover",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func webp() async throws {
        let space = try Workspace()
        let anim = try Self.corpus("image-rs/tests/images/webp/extended_images/anim.webp")  // 200×200, 6 frames
        let rows = [[anim, "a.gif", "inside", ""], [anim, "b.webp", "cover", ""], [anim, "c.gif", "cover", ""],
                    [anim, "d.gif", "inside", "0.5,0,0.5,0.5"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "fit", "crop"], rows),
                                      ["--size", "64x32", "--animated"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let a = try ImageFacts.read(space.output("a.gif"))
        #expect(a.frames == 6 && a.width == 32 && a.height == 32, "\(a)")
        let b = try ImageFacts.read(space.output("b.webp"))
        #expect(b.frames > 1 && b.width == 64 && b.height == 32, "\(b)")
        let c = try ImageFacts.read(space.output("c.gif"))
        #expect(c.frames == 6 && c.width == 64 && c.height == 32, "\(c)")
        // The crop is cut from each frame alike: the top-right quarter, 100×100, then scaled.
        let d = try ImageFacts.read(space.output("d.gif"))
        #expect(d.frames == 6 && d.width == 32 && d.height == 32, "\(d)")
    }

    @Test("--max-frames caps the frames a row may keep; the first frame is always allowed")
    func frameLimit() async throws {
        let space = try Workspace()
        // Three 24×16 frames, red, green and blue, stacked.
        let strip = RawImage(width: 24, height: 48) { _, y in [Colour.red, .green, .blue][y / 16] }
        _ = try space.folder.write(try strip.encodedAnimation(pageHeight: 16, as: .gif), to: "three.gif")
        let facts = try ImageFacts.read(space.folder.file("three.gif"))
        try #require(facts.frames == 3, "fixture: \(facts)")
        let rows = [["three.gif", "all.gif", "true"], ["three.gif", "first.gif", "false"]]
        let manifest = CSV.manifest(["src", "out", "animated"], rows)
        let capped = try await space.run(manifest: manifest, ["--max-frames", "2"])
        #expect(capped.report?.row(2)?.error?.code == "too_large")
        #expect(capped.report?.row(3)?.status == "written")
        let allowed = try await space.run(manifest: manifest, ["--max-frames", "3"])
        #expect(allowed.report?.row(2)?.status == "written")
        let means = try ImageFacts.frameMeans(space.output("all.gif"))
        #expect(means.count == 3, "\(means)")
    }

    @Test("WebP orientation tags 2–8 are applied: each matches the upright original",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func webpOrientation() async throws {
        let space = try Workspace()
        var rows = [[try Self.corpus("pillow/Tests/images/hopper.png"), "upright.png"]]
        for tag in 2...8 {
            rows.append([try Self.corpus("pillow/Tests/images/hopper_orientation_\(tag).webp"), "\(tag).png"])
        }
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "64x64"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let upright = try space.pixels("upright.png")
        for tag in 2...8 {
            let image = try space.pixels("\(tag).png")
            let difference = try #require(image.meanAbsoluteDifference(from: upright))
            // Lossy WebP against the PNG original; a missed turn or flip costs 30 or more.
            #expect(difference < 8, "orientation \(tag): \(difference)")
        }
    }
}
