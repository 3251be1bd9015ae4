import Foundation
import Testing
@testable import Thumbgen

/// `focus` (a focal point that `cover` and `none` centre their crop on) and `fit=outside`, on a
/// source of four vertical bands (red, green, blue, yellow, 100 px each), checked by pixel.
@Suite("End to end: focus and fit=outside")
struct FocusAndOutsideTests {
    static let bands = RawImage(width: 400, height: 200) { x, _ in [Colour.red, .green, .blue, .yellow][x / 100] }

    @Test("A focus point moves the crop, clamped to the image, whatever the gravity; outside covers the box uncut")
    func focusMovesTheCrop() async throws {
        let space = try Workspace("focus")
        try space.fixture(Self.bands, "bands.png")
        // cover 100×100 scales to 200×100 (bands of 50 px): the crop's offset is what moves.
        let rows: [[String]] = [
            ["bands.png", "centre.png", "100x100", "cover", "", "center"],
            ["bands.png", "right.png", "100x100", "cover", "0.9,0.5", "left"],
            ["bands.png", "left.png", "100x100", "cover", "0.1,0.5", "right"],
            ["bands.png", "middle.png", "100x100", "cover", "0.5,0.5", "left"],
            // none: no scaling; a 100-px window centred at x = 300 starts at 250.
            ["bands.png", "none.png", "100x200", "none", "0.75,0.5", "center"],
            // With a crop (the right half), the point is still in the whole image's fractions.
            ["bands.png", "cropped.png", "50x100", "cover", "0.99,0.5", "center"],
            ["bands.png", "outside.png", "100x100", "outside", "", "center"],
            ["bands.png", "outside-tall.png", "100x300", "outside", "", "center"],
        ]
        var cells = rows
        cells[5].append("0.5,0,0.5,1")
        for index in cells.indices where cells[index].count == 6 { cells[index].append("") }
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "fit", "focus", "gravity", "crop"], cells))
        #expect(run.status == 0, "\(run.result.stderr)")
        func expect(_ out: String, _ samples: [(Int, Int, Colour)], size: (Int, Int)) throws {
            let image = try space.pixels(out)
            #expect(image.width == size.0 && image.height == size.1, "\(out): \(image.width)×\(image.height)")
            for (x, y, colour) in samples {
                let found = image.pixel(x, y)
                #expect(image.pixel(x, y, is: colour, tolerance: 6), "\(out) at (\(x), \(y)) is \(found), expected \(colour)")
            }
        }
        try expect("centre.png", [(10, 50, .green), (90, 50, .blue)], size: (100, 100))
        try expect("right.png", [(10, 50, .blue), (90, 50, .yellow)], size: (100, 100))
        try expect("left.png", [(10, 50, .red), (90, 50, .green)], size: (100, 100))
        try expect("middle.png", [(10, 50, .green), (90, 50, .blue)], size: (100, 100))
        try expect("none.png", [(10, 100, .blue), (90, 100, .yellow)], size: (100, 200))
        // The right half (blue, yellow) scaled to 100×100; a 50-px window at its far right.
        try expect("cropped.png", [(5, 50, .yellow), (45, 50, .yellow)], size: (50, 100))
        try expect("outside.png", [(10, 50, .red), (190, 50, .yellow)], size: (200, 100))
        // 100×300 needs the height: 600×300, never enlarged without upscale: the source itself.
        try expect("outside-tall.png", [(50, 100, .red), (350, 100, .yellow)], size: (400, 200))
    }

    @Test("A focus point is in the key only when given; a bad one fails its row, naming the column")
    func keysAndErrors() async throws {
        var spec = ThumbnailSpec()
        #expect(!spec.identifier.contains("focus"))
        spec.focus = FocusPoint(x: 0.25, y: 0.75)
        #expect(spec.identifier.hasSuffix(";focus=0.25,0.75"))
        #expect(FocusPoint.offset(centredAt: 0.9, length: 200, window: 100) == 100)
        #expect(FocusPoint.offset(centredAt: -1, length: 200, window: 100) == 0)
        #expect(FocusPoint.offset(centredAt: 0.5, length: 50, window: 100) == 0)

        let space = try Workspace("focus-bad")
        try space.fixture(Self.bands, "bands.png")
        let rows = [["bands.png", "a.png", "1.5,0.2"], ["bands.png", "b.png", "a,b"], ["bands.png", "c.png", "0.5"],
                    ["bands.png", "d.png", "0.5,0.5"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "focus"], rows))
        #expect(run.status == 1)
        let report = try #require(run.report)
        for line in 2...4 {
            let row = try #require(report.row(line))
            #expect(row.status == "failed" && row.error?.code == "invalid_row" && row.error?.message.contains("focus") == true,
                    "row \(line): \(String(describing: row.error))")
        }
        #expect(report.row(5)?.status == "written")
    }
}
