import Foundation
import Testing
@testable import Thumbgen

/// `trim`: uniform borders cut before anything else, as sharp's `trim()`: the colour of the
/// top-left pixel, within a threshold.
@Suite("End to end: trim")
struct TrimTests {
    @Test("A white border is cut exactly, the crop box says so, and the rest of the recipe applies to what is left; an image without a border, or all one colour, is left whole")
    func trims() async throws {
        let space = try Workspace("trim")
        let bands = FocusAndOutsideTests.bands
        // The bands inside a 40-px border of near-white (within the threshold of the corner's white).
        try space.fixture(RawImage(width: 480, height: 280) { x, y in
            guard (40..<440).contains(x), (40..<240).contains(y) else {
                return (x + y) % 7 == 0 ? Colour(r: 250, g: 252, b: 251) : Colour(r: 255, g: 255, b: 255)
            }
            return [Colour.red, .green, .blue, .yellow][(x - 40) / 100]
        }, "framed.png")
        try space.fixture(bands, "bands.png")
        // Every edge pixel differs from the corner's: nothing to trim.
        try space.fixture(RawImage(width: 300, height: 200) { x, y in
            Colour(r: UInt8(x * 255 / 299), g: UInt8(y * 255 / 199), b: 90)
        }, "gradient.png")
        try space.fixture(RawImage(width: 50, height: 50) { _, _ in .blue }, "flat.png")
        let rows: [[String]] = [
            ["framed.png", "framed.png", "", "10"], ["framed.png", "framed-100.png", "100", "true"],
            ["gradient.png", "gradient.png", "", "10"], ["flat.png", "flat.png", "", "10"],
            ["bands.png", "bands-trimmed.png", "", "10"], ["framed.png", "kept.png", "", ""],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "trim"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        let framed = try space.pixels("framed.png"), plain = try PixelImage.load(space.folder.file("bands.png"))
        #expect(framed.width == 400 && framed.height == 200 && framed.pixels == plain.pixels)
        #expect(report.rows[0].crop == Report.Crop(x: 40, y: 40, width: 400, height: 200))
        let small = try space.pixels("framed-100.png")
        #expect(small.width == 100 && small.height == 50 && small.pixel(5, 25, is: .red, tolerance: 8), "\(small.pixel(5, 25))")
        let gradient = try space.pixels("gradient.png")
        #expect(report.rows[2].crop == nil && report.rows[3].crop == nil && gradient.width == 300)
        // The bands' left band is the corner's colour from edge to edge: a border too, as sharp trims it.
        #expect(report.rows[4].crop == Report.Crop(x: 100, y: 0, width: 300, height: 200))
        #expect(try space.pixels("flat.png").width == 50)
        #expect(try space.pixels("kept.png").width == 480)

        var spec = ThumbnailSpec()
        let plainKey = spec.identifier
        spec.trimThreshold = 10
        #expect(spec.identifier == plainKey + ";trim=10.0")
        let bad = try await space.run(manifest: CSV.manifest(["src", "out", "trim"], [["bands.png", "x.png", "300"]]))
        #expect(bad.status == 1 && bad.report?.row(2)?.error?.message.contains("trim") == true)
    }

    @Test("With alpha, a shape whose colour is the corner's is found by its opacity, as sharp's trim")
    func trimsByAlpha() async throws {
        let space = try Workspace("trim-alpha")
        // A white square on a transparent white ground: flattened, every pixel is white.
        try space.fixture(RawImage(width: 300, height: 200, alpha: true) { x, y in
            (100..<200).contains(x) && (50..<150).contains(y) ? .white : Colour(r: 255, g: 255, b: 255, a: 0)
        }, "shape.png")
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "trim"], [["shape.png", "shape.png", "10"]]))
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.rows.first?.crop == Report.Crop(x: 100, y: 50, width: 100, height: 100))
        #expect(try space.pixels("shape.png").width == 100)
    }
}
