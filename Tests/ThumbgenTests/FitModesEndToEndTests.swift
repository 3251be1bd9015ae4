import Foundation
import Testing
import Thumbgen

/// The real binary on generated quadrant images (red, green / blue, yellow): each fit mode's
/// size, and by pixel where `contain` pads, where `cover` and `none` crop, and what `crop` keeps.
@Suite("End to end: fit, gravity, crop")
struct FitModesEndToEndTests {
    /// Checks every (x, y) → colour of `image`, naming the output on failure.
    static func expectPixels(_ image: PixelImage, _ name: String, _ samples: [(Int, Int, Colour)],
                             tolerance: Int = 4,
                             sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for (x, y, colour) in samples {
            #expect(image.pixel(x, y, is: colour, tolerance: tolerance),
                    "\(name) at (\(x),\(y)) is \(image.pixel(x, y)), expected \(colour)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("Each fit mode gives its size, in the report and in the file")
    func sizes() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 400, height: 300), "quad.png")
        let rows: [[String]] = [
            ["quad.png", "inside.png", "200x200", "inside"],
            ["quad.png", "cover.png", "200x200", "cover"],
            ["quad.png", "contain.png", "200x200", "contain"],
            ["quad.png", "fill.png", "200x200", "fill"],
            ["quad.png", "none.png", "200x200", "none"],
            ["quad.png", "wide-cover.png", "300x100", "cover"],
            ["quad.png", "", "100", ""],
            ["quad.png", "{name}-{fit}-{row}.{ext}", "x60", "contain"],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "fit"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        let expected: [(String, Int, Int)] = [
            ("inside.png", 200, 150), ("cover.png", 200, 200), ("contain.png", 200, 200),
            ("fill.png", 200, 200), ("none.png", 200, 200), ("wide-cover.png", 300, 100),
            ("quad-100x75.png", 100, 75), ("quad-contain-9.png", 80, 60),
        ]
        #expect(report.rows.map(\.out) == expected.map(\.0))
        for (line, (out, width, height)) in zip(2..., expected) {
            let row = try #require(report.row(line))
            #expect(row.status == "written" && row.width == width && row.height == height, "\(out)")
            let image = try space.pixels(out)
            #expect(image.width == width && image.height == height, "\(out) is \(image.width)x\(image.height)")
        }
        #expect(space.outputFiles == expected.map(\.0).sorted())
    }

    @Test("contain pads with the background colour at the gravity")
    func containPads() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 400, height: 300), "quad.png")
        let rows = [
            ["quad.png", "center.png", "center", "png"],
            ["quad.png", "top.png", "top", "png"],
            ["quad.png", "center.jpg", "center", "jpeg"],
        ]
        let run = try await space.run(
            manifest: CSV.manifest(["src", "out", "gravity", "format"], rows),
            ["--size", "200x200", "--fit", "contain", "--background", "#ff00ff"])
        #expect(run.status == 0, "\(run.result.stderr)")
        // 200x150 of picture on a 200x200 canvas: 25 rows of padding above and below.
        let center = try space.pixels("center.png")
        Self.expectPixels(center, "center.png", [
            (0, 0, .magenta), (100, 12, .magenta), (199, 199, .magenta), (100, 190, .magenta),
            (50, 60, .red), (150, 60, .green), (50, 140, .blue), (150, 140, .yellow),
        ])
        // With gravity top, all 50 rows of padding are at the bottom.
        let top = try space.pixels("top.png")
        Self.expectPixels(top, "top.png", [
            (50, 10, .red), (150, 10, .green), (50, 140, .blue), (100, 160, .magenta), (0, 199, .magenta),
        ])
        let jpeg = try space.pixels("center.jpg")
        #expect(jpeg.bands == 3)
        Self.expectPixels(jpeg, "center.jpg", [(100, 5, .magenta), (5, 195, .magenta), (50, 60, .red)],
                          tolerance: 12)
    }

    @Test("cover keeps the part of the picture at the gravity", arguments: [
        // A wide source loses its sides; a tall one its top or bottom.
        (400, 200, "top-left", [Colour.red, .red, .blue, .blue]),
        (400, 200, "bottom-right", [Colour.green, .green, .yellow, .yellow]),
        (400, 200, "center", [Colour.red, .green, .blue, .yellow]),
        (200, 400, "top-left", [Colour.red, .green, .red, .green]),
        (200, 400, "bottom-right", [Colour.blue, .yellow, .blue, .yellow]),
        (200, 400, "left", [Colour.red, .green, .blue, .yellow]),
    ])
    func coverGravity(width: Int, height: Int, gravity: String, corners: [Colour]) async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: width, height: height), "src.png")
        let run = try await space.run(
            manifest: CSV.manifest(["src", "out", "fit", "size", "gravity"],
                                   [["src.png", "out.png", "cover", "100x100", gravity]]))
        #expect(run.status == 0, "\(run.result.stderr)")
        let image = try space.pixels("out.png")
        #expect(image.width == 100 && image.height == 100)
        Self.expectPixels(image, "cover \(width)x\(height) \(gravity)", [
            (20, 20, corners[0]), (80, 20, corners[1]), (20, 80, corners[2]), (80, 80, corners[3]),
        ])
    }

    @Test("none cuts the box out of the unscaled source at the gravity", arguments: [
        ("top-left", [Colour.red, .red, .red, .red]),
        ("top-right", [Colour.green, .green, .green, .green]),
        ("bottom-left", [Colour.blue, .blue, .blue, .blue]),
        ("bottom-right", [Colour.yellow, .yellow, .yellow, .yellow]),
        ("center", [Colour.red, .green, .blue, .yellow]),
        ("top", [Colour.red, .green, .red, .green]),
    ])
    func noneCrops(gravity: String, corners: [Colour]) async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 400, height: 300), "src.png")
        let run = try await space.run(
            manifest: CSV.manifest(["src", "out", "fit", "size", "gravity"],
                                   [["src.png", "out.png", "none", "100x100", gravity]]))
        #expect(run.status == 0, "\(run.result.stderr)")
        let image = try space.pixels("out.png")
        #expect(image.width == 100 && image.height == 100)
        // No scaling: every pixel is exact, edges included.
        Self.expectPixels(image, "none \(gravity)", [
            (0, 0, corners[0]), (99, 0, corners[1]), (0, 99, corners[2]), (99, 99, corners[3]),
            (25, 25, corners[0]), (75, 25, corners[1]), (25, 75, corners[2]), (75, 75, corners[3]),
        ], tolerance: 0)
    }

    @Test("The crop column picks the region before scaling", arguments: [
        ("0.5,0.5,0.5,0.5", Colour.yellow), ("0,0.5,0.5,0.5", .blue), ("0.5,0,0.5,0.5", .green),
        ("0.05,0.05,0.4,0.4", .red),
    ])
    func cropColumn(crop: String, colour: Colour) async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 400, height: 300), "src.png")
        let run = try await space.run(
            manifest: CSV.manifest(["src", "out", "crop", "width"], [["src.png", "out.png", crop, "100"]]))
        #expect(run.status == 0, "\(run.result.stderr)")
        let image = try space.pixels("out.png")
        #expect(image.width == 100 && image.height == 75)
        #expect(run.report?.row(2)?.width == 100 && run.report?.row(2)?.height == 75)
        Self.expectPixels(image, "crop \(crop)", [(0, 0, colour), (99, 0, colour), (0, 74, colour),
                                                   (99, 74, colour), (50, 37, colour)], tolerance: 2)
    }

    @Test("Without upscale a small source keeps its size; with it, it grows")
    func upscale() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 40, height: 30), "small.png")
        let rows = [["small.png", "kept.png", ""], ["small.png", "grown.png", "true"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "upscale"], rows),
                                      ["--size", "200x200"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.row(2)?.width == 40 && run.report?.row(2)?.height == 30)
        #expect(run.report?.row(3)?.width == 200 && run.report?.row(3)?.height == 150)
        let grown = try space.pixels("grown.png")
        Self.expectPixels(grown, "grown.png", [(30, 30, .red), (170, 120, .yellow)])
    }

    @Test("Smart gravities crop to the detailed, saturated part", arguments: ["attention", "entropy"])
    func smartCrop(gravity: String) async throws {
        let space = try Workspace()
        // Flat grey, but for a red/blue checkerboard in the right quarter.
        let source = RawImage(width: 400, height: 100) { x, y in
            guard x >= 300 else { return Colour(r: 128, g: 128, b: 128) }
            return (x / 4 + y / 4) % 2 == 0 ? .red : .blue
        }
        try space.fixture(source, "src.png")
        let rows = [["src.png", "smart.png", gravity], ["src.png", "center.png", "center"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "gravity"], rows),
                                      ["--fit", "cover", "--size", "100x100"])
        #expect(run.status == 0, "\(run.result.stderr)")
        func detailShare(_ image: PixelImage) -> Double {
            var coloured = 0
            for y in 0..<image.height {
                for x in 0..<image.width where !image.pixel(x, y, is: Colour(r: 128, g: 128, b: 128), tolerance: 8) {
                    coloured += 1
                }
            }
            return Double(coloured) / Double(image.width * image.height)
        }
        let smart = try space.pixels("smart.png"), center = try space.pixels("center.png")
        #expect(smart.width == 100 && smart.height == 100)
        #expect(detailShare(center) < 0.01)
        // libvips judges interest on a reduced copy, so the window may stray a little; most of it
        // must still be the detailed quarter (center keeps none of it).
        #expect(detailShare(smart) > 0.6, "\(gravity) kept \(detailShare(smart)) of the detail")
    }
}
