import Foundation
import Testing
@testable import Thumbgen

/// `rotate` and `flip`: a turn after the EXIF orientation; the box, gravity and focus apply to
/// the turned image. Checked by pixel on four vertical bands (red, green, blue, yellow) and
/// on quadrants.
@Suite("End to end: rotate and flip")
struct ReorientationTests {
    @Test("Each turn puts each band where a clockwise rotation, then the mirrors, would; the box and the gravity apply to the turned image")
    func turns() async throws {
        let space = try Workspace("turns")
        try space.fixture(FocusAndOutsideTests.bands, "bands.png")
        try space.fixture(.quadrants(width: 400, height: 200), "quad.png")
        let rows: [[String]] = [
            ["bands.png", "r90.png", "", "", "90", "", ""],
            ["bands.png", "r180.png", "", "", "180", "", ""],
            ["bands.png", "r270.png", "", "", "270", "", ""],
            ["bands.png", "h.png", "", "", "", "h", ""],
            ["quad.png", "v.png", "", "", "", "v", ""],
            ["quad.png", "r90hv.png", "", "", "90", "h,v", ""],
            ["bands.png", "r90-100.png", "100", "", "90", "", ""],
            ["bands.png", "r90-cover-top.png", "100x100", "cover", "90", "", ""],
            ["bands.png", "r90-focus.png", "100x100", "cover", "90", "", "0.95,0.5"],
            ["bands.png", "r0.png", "", "", "0", "none", ""],
        ]
        var cells = rows
        cells[7].append("top")
        for index in cells.indices where cells[index].count == 7 { cells[index].append("center") }
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "fit", "rotate", "flip", "focus", "gravity"], cells))
        #expect(run.status == 0, "\(run.result.stderr)")
        func expect(_ out: String, size: (Int, Int), _ samples: [(Int, Int, Colour)]) throws {
            let image = try space.pixels(out)
            #expect(image.width == size.0 && image.height == size.1, "\(out): \(image.width)×\(image.height)")
            for (x, y, colour) in samples {
                let found = image.pixel(x, y)
                #expect(image.pixel(x, y, is: colour, tolerance: 6), "\(out) at (\(x), \(y)) is \(found), expected \(colour)")
            }
        }
        // Clockwise: the left edge (red) goes to the top.
        try expect("r90.png", size: (200, 400), [(100, 50, .red), (100, 150, .green), (100, 350, .yellow)])
        try expect("r180.png", size: (400, 200), [(50, 100, .yellow), (350, 100, .red)])
        try expect("r270.png", size: (200, 400), [(100, 50, .yellow), (100, 350, .red)])
        try expect("h.png", size: (400, 200), [(50, 100, .yellow), (350, 100, .red)])
        // Quadrants: red, green over blue, yellow. Top to bottom: blue, yellow over red, green.
        try expect("v.png", size: (400, 200), [(100, 50, .blue), (300, 50, .yellow), (100, 150, .red)])
        // 90° puts blue top left, red top right, yellow bottom left; both mirrors: green top left.
        try expect("r90hv.png", size: (200, 400), [(50, 100, .green), (150, 100, .yellow), (50, 300, .red), (150, 300, .blue)])
        // The box is the turned image's: 100 wide is 100×200.
        try expect("r90-100.png", size: (100, 200), [(50, 25, .red), (50, 175, .yellow)])
        // cover 100×100 of the turned 100×200, at the top: red then green.
        try expect("r90-cover-top.png", size: (100, 100), [(50, 10, .red), (50, 90, .green)])
        // A focus point in the upright image's fractions (0.95 across: yellow) follows the turn.
        try expect("r90-focus.png", size: (100, 100), [(50, 10, .blue), (50, 90, .yellow)])
        try expect("r0.png", size: (400, 200), [(50, 100, .red)])
    }

    @Test("No turn leaves the key as it was; a turn is in it; bad cells fail their row, naming the column")
    func keysAndErrors() async throws {
        var spec = ThumbnailSpec()
        let plain = spec.identifier
        spec.reorientation = Reorientation(degrees: 0)
        #expect(spec.identifier == plain && !plain.contains("turn"))
        spec.reorientation = Reorientation(degrees: 270, mirrorsAcross: true)
        #expect(spec.identifier == plain + ";turn=r270h")
        #expect(Reorientation(degrees: 90).turnedPoint(x: 0.25, y: 0.1) == (0.9, 0.25))
        #expect(Reorientation(degrees: 270, mirrorsDown: true).turnedPoint(x: 0.25, y: 0.1) == (0.1, 0.25))

        let space = try Workspace("turns-bad")
        try space.fixture(FocusAndOutsideTests.bands, "bands.png")
        let rows = [["bands.png", "a.png", "45", ""], ["bands.png", "b.png", "", "x"], ["bands.png", "c.png", "", "hh"],
                    ["bands.png", "d.png", "-90", ""], ["bands.png", "e.png", "270", "v"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "rotate", "flip"], rows))
        #expect(run.status == 1)
        let report = try #require(run.report)
        for (line, column) in [(2, "rotate"), (3, "flip"), (4, "flip"), (5, "rotate")] {
            let row = try #require(report.row(line))
            #expect(row.status == "failed" && row.error?.message.contains(column) == true, "row \(line): \(String(describing: row.error))")
        }
        #expect(report.row(6)?.status == "written" && report.row(6)?.width == 200)
    }
}
