import Foundation
import Testing
import Thumbgen

/// Output formats by magic bytes, `format=auto`, alpha handling, and stripped metadata.
@Suite("End to end: output formats")
struct OutputFormatTests {
    @Test("Each writable format is what its bytes say, and what the report says")
    func magicBytes() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 120, height: 80), "src.png")
        let rows = [
            ["src.png", "a.jpg", "jpeg"], ["src.png", "b.out", "jpg"], ["src.png", "c.png", "png"],
            ["src.png", "d.webp", "webp"], ["src.png", "e.avif", "avif"],
            // auto: the out template's extension, else the source's format
            ["src.png", "f.webp", "auto"], ["src.png", "g.jpeg", ""], ["src.png", "h-{w}.{ext}", ""],
            ["src.png", "i.{ext}", "jpeg"],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "format"], rows),
                                      ["--width", "60"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        let expected: [(String, String, (Data) -> Bool)] = [
            ("a.jpg", "jpeg", Magic.isJPEG), ("b.out", "jpeg", Magic.isJPEG), ("c.png", "png", Magic.isPNG),
            ("d.webp", "webp", Magic.isWebP), ("e.avif", "avif", Magic.isAVIF),
            ("f.webp", "webp", Magic.isWebP), ("g.jpeg", "jpeg", Magic.isJPEG),
            ("h-60.png", "png", Magic.isPNG), ("i.jpg", "jpeg", Magic.isJPEG),
        ]
        for (line, (out, format, check)) in zip(2..., expected) {
            let row = try #require(report.row(line))
            #expect(row.out == out && row.format == format && row.status == "written", "row \(line)")
            let data = try Data(contentsOf: space.output(out))
            #expect(check(data), "\(out) starts with \(Array(data.prefix(12)))")
            #expect(row.bytes == data.count, "\(out)")
        }
    }

    @Test("jxl, gif and tiff parse but fail their row with not_supported")
    func notYetWritable() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 40, height: 40), "src.png")
        let rows = [["src.png", "jxl"], ["src.png", "gif"], ["src.png", "tiff"], ["src.png", "png"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "format"], rows))
        #expect(run.status == 1)
        let report = try #require(run.report)
        for line in 2...4 {
            #expect(report.row(line)?.error?.code == "not_supported", "row \(line)")
            #expect(report.row(line)?.error?.message.contains("src.png") == true)
        }
        #expect(report.row(5)?.status == "written")
        #expect(space.outputFiles == ["src-40x40.png"])
    }

    /// 200×100: the left half fully transparent (its hidden colour red), the right opaque blue.
    static let halfTransparent = RawImage(width: 200, height: 100, alpha: true) { x, _ in
        x < 100 ? Colour(r: 255, g: 0, b: 0, a: 0) : Colour(r: 30, g: 40, b: 210, a: 255)
    }

    @Test("Alpha is flattened onto the background for JPEG, kept for PNG and WebP")
    func alpha() async throws {
        let space = try Workspace()
        try space.fixture(Self.halfTransparent, "alpha.png")
        let rows = [["alpha.png", "flat.jpg"], ["alpha.png", "kept.png"], ["alpha.png", "kept.webp"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows),
                                      ["--background", "#00ff00"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let flat = try space.pixels("flat.jpg")
        #expect(flat.bands == 3)
        #expect(flat.pixel(40, 50, is: Colour(r: 0, g: 255, b: 0), tolerance: 10), "\(flat.pixel(40, 50))")
        #expect(flat.pixel(160, 50, is: .blue, tolerance: 10), "\(flat.pixel(160, 50))")

        let png = try space.pixels("kept.png")
        #expect(png.bands == 4)
        #expect(png.pixel(40, 50)[3] == 0)
        #expect(png.pixel(160, 50) == [30, 40, 210, 255])

        let webp = try space.pixels("kept.webp")
        #expect(webp.bands == 4)
        #expect(webp.pixel(40, 50)[3] == 0)
        #expect(webp.pixel(160, 50)[3] == 255)
        #expect(webp.pixel(160, 50, is: .blue, tolerance: 12), "\(webp.pixel(160, 50))")
    }

    @Test("Scaling an image with alpha does not bleed the hidden colour into the edge")
    func premultipliedResample() async throws {
        let space = try Workspace()
        try space.fixture(Self.halfTransparent, "alpha.png")
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "width"],
                                                             [["alpha.png", "small.png", "50"]]))
        #expect(run.status == 0, "\(run.result.stderr)")
        let image = try space.pixels("small.png")
        // Every visible pixel keeps the opaque half's colour: none turns reddish.
        for y in 0..<image.height {
            for x in 0..<image.width where image.pixel(x, y)[3] >= 64 {
                #expect(Int(image.pixel(x, y)[0]) <= 60, "(\(x),\(y)) is \(image.pixel(x, y))")
            }
        }
    }

    @Test("Outputs carry no EXIF, even when the source has it")
    func metadataStripped() async throws {
        let space = try Workspace()
        let jpeg = try RawImage.quadrants(width: 160, height: 120).encoded(as: .jpeg)
        let source = FixtureBytes.jpeg(jpeg, withExifOrientation: 1)
        try space.folder.write(source, to: "exif.jpg")
        let exifMarker: [UInt8] = Array("Exif".utf8) + [0, 0]
        #expect(FixtureBytes.contains(source, exifMarker), "the fixture itself must carry EXIF")
        let rows = [["exif.jpg", "a.jpg"], ["exif.jpg", "b.png"], ["exif.jpg", "c.webp"], ["exif.jpg", "d.avif"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--width", "80"])
        #expect(run.status == 0, "\(run.result.stderr)")
        for name in ["a.jpg", "b.png", "c.webp", "d.avif"] {
            let data = try Data(contentsOf: space.output(name))
            let markers = [exifMarker, Array("eXIf".utf8), Array("EXIF".utf8), [0x4D, 0x4D, 0x00, 0x2A]]
            let found = markers.filter { FixtureBytes.contains(data, $0) }
            #expect(found.isEmpty, "\(name) carries EXIF: \(found)")
        }
        // No APP1 segment at all in the JPEG's header.
        let out = try Data(contentsOf: space.output("a.jpg"))
        #expect(!FixtureBytes.contains(out.prefix(64), [0xFF, 0xE1]))
    }
}
