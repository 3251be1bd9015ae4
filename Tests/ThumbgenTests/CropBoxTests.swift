import Foundation
import Testing
@testable import Thumbgen

/// The report's `crop`: the part of the upright source each output shows, in source pixels,
/// from every way thumbgen crops (a crop cell, cover and none at a gravity or a focus point, a
/// turn, a smart crop), the same from a warm run served by the journal.
@Suite("Results: the crop box in the report")
struct CropBoxTests {
    @Test("Each row that crops reports the box it took; one that shows the whole source reports none; a warm run says the same")
    func boxes() async throws {
        let space = try Workspace("crop-box")
        // The four bands, and a bright spot on black, right of centre, for the smart crop to find.
        try space.fixture(FocusAndOutsideTests.bands, "bands.png")
        try space.fixture(RawImage(width: 400, height: 200) { x, y in
            (300...340).contains(x) && (80...120).contains(y) ? Colour(r: 250, g: 250, b: 250) : Colour(r: 0, g: 0, b: 0)
        }, "spot.png")
        let rows: [[String]] = [
            ["bands.png", "centre.png", "100x100", "cover", "center", "", "", ""],
            ["bands.png", "east.png", "100x100", "cover", "right", "", "", ""],
            ["bands.png", "focus.png", "100x100", "cover", "center", "0.9,0.5", "", ""],
            ["bands.png", "none.png", "100x200", "none", "center", "0.75,0.5", "", ""],
            ["bands.png", "cell.png", "", "inside", "center", "", "0.25,0,0.5,1", ""],
            ["bands.png", "turned.png", "100x100", "cover", "top", "", "", "90"],
            ["bands.png", "inside.png", "100", "inside", "center", "", "", ""],
            ["bands.png", "contain.png", "100x100", "contain", "center", "", "", ""],
            ["spot.png", "smart.png", "100x100", "cover", "attention", "", "", ""],
        ]
        let manifest = CSV.manifest(["src", "out", "size", "fit", "gravity", "focus", "crop", "rotate"], rows)
        var reports: [Report] = []
        for _ in 0..<3 {
            let run = try await space.run(manifest: manifest)
            #expect(run.status == 0, "\(run.result.stderr)")
            reports.append(try #require(run.report))
        }
        let boxes = reports[0].rows.map { $0.crop }
        func box(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Report.Crop { Report.Crop(x: x, y: y, width: w, height: h) }
        // cover 100×100 scales 400×200 to 200×100: the window is 100 of 200 scaled pixels.
        #expect(boxes[0] == box(100, 0, 200, 200))
        #expect(boxes[1] == box(200, 0, 200, 200))
        #expect(boxes[2] == box(200, 0, 200, 200))
        #expect(boxes[3] == box(250, 0, 100, 200))
        #expect(boxes[4] == box(100, 0, 200, 200))
        // Turned 90°, the top of the output is the source's left: its left half.
        #expect(boxes[5] == box(0, 0, 200, 200))
        #expect(boxes[6] == nil && boxes[7] == nil)
        let smart = try #require(boxes[8])
        #expect(smart.width == 200 && smart.height == 200 && smart.x <= 300 && smart.x + smart.width >= 340, "\(smart)")
        // The crop box is where the pixels came from: the smart crop shows the spot.
        let spot = try space.pixels("smart.png")
        let centre = ((320 - smart.x) / 2, (100 - smart.y) / 2)
        #expect(spot.pixel(centre.0, centre.1)[0] > 200, "\(spot.pixel(centre.0, centre.1)) at \(centre)")
        // Warm runs (the second writes the journal's entries, the third is served by them).
        for report in reports.dropFirst() {
            #expect(report.rows.allSatisfy { $0.status == "unchanged" })
            #expect(report.rows.map { $0.crop } == boxes)
        }
        if ReportSchemaTests.hasValidator {
            let problems = try #require(try ReportSchemaTests.violations(space.reportURL))
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    @Test("The gravity offsets are vips_gravity's: C's truncating division for the centre")
    func gravityOffsets() {
        #expect(Gravity.center.cropOffset(inner: (100, 100), outer: (267, 200)) == (83, 50))
        #expect(Gravity.bottomRight.cropOffset(inner: (100, 100), outer: (267, 200)) == (167, 100))
        #expect(Gravity.topLeft.cropOffset(inner: (100, 100), outer: (267, 200)) == (0, 0))
        #expect(Reorientation(degrees: 90).uprightRect((0, 0, 100, 100), turnedWidth: 100, turnedHeight: 200) == (0, 0, 100, 100))
        #expect(Reorientation(degrees: 270).uprightRect((0, 0, 100, 100), turnedWidth: 100, turnedHeight: 200) == (100, 0, 100, 100))
        #expect(CropBox(stored: "1,2,3,4") == CropBox(x: 1, y: 2, width: 3, height: 4))
        #expect(CropBox(stored: "1,2,0,4") == nil && CropBox(stored: "1,2,3") == nil)
    }
}
