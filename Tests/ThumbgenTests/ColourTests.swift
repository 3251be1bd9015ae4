import Foundation
import Testing

/// Colour handling on real files: profiles are honoured where they are usable, and a broken
/// profile does not cost the image.
@Suite("End to end: colour")
struct ColourTests {
    @Test("A JPEG whose embedded ICC profile is broken is still written, as sRGB",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func brokenProfile() async throws {
        let corpora = try #require(TestPaths.corpora)
        let space = try Workspace()
        // Pillow's fixture: the ICC segment comes after SOF and is cut short (libvips: "Read
        // from memory error. Got 7 bytes, block should be of 128 bytes").
        let source = corpora.appendingPathComponent("pillow/Tests/images/icc-after-SOF.jpg").path
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], [[source, "a.png"]]),
                                      ["--size", "64x64"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.row(2)?.status == "written")
        let image = try space.pixels("a.png")
        #expect(image.bands == 3 && max(image.width, image.height) <= 64)
    }
}
