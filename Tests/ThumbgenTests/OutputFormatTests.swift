import Foundation
import Testing
@testable import Thumbgen

/// Output formats by magic bytes, `format=auto`, alpha handling, and stripped metadata.
@Suite("End to end: output formats")
struct OutputFormatTests {
    /// The numbers the warm journal stores formats by. A new format takes a number not in this
    /// table; changing one would make old journals name the wrong format.
    static let storedCodes: [OutputFormat: UInt8] = [.jpeg: 0, .png: 1, .webp: 2, .avif: 3, .jxl: 4, .gif: 5, .tiff: 6]

    @Test("Each format's stored code is pinned, distinct, and read back as the format")
    func storedCodes() {
        for format in OutputFormat.allCases {
            #expect(Self.storedCodes[format] == format.storedCode, "\(format) is stored as \(format.storedCode)")
            #expect(OutputFormat(storedCode: format.storedCode) == format)
        }
        #expect(Set(OutputFormat.allCases.map(\.storedCode)).count == OutputFormat.allCases.count)
        #expect(Self.storedCodes.count == OutputFormat.allCases.count, "a format without a pinned code")
        #expect(OutputFormat(storedCode: 200) == nil)
    }

    @Test("A libvips loader's name gives the format it reads, with or without its source or buffer suffix")
    func loaderNames() {
        let named: [(String, OutputFormat?)] = [
            ("jpegload", .jpeg), ("jpegload_source", .jpeg), ("jpegload_buffer", .jpeg), ("pngload_source", .png),
            ("webpload", .webp), ("heifload_buffer", .avif), ("jxlload_source", .jxl), ("gifload", .gif),
            ("tiffload", .tiff), ("svgload", nil), ("magickload_buffer", nil), ("jpeg", nil), ("", nil), ("load", nil),
        ]
        for (loader, format) in named {
            #expect(OutputFormat(loader: loader) == format, "\(loader)")
        }
    }

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

    @Test("JPEG XL, GIF and TIFF are written, with alpha where the format has it")
    func moreFormats() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 120, height: 80), "src.png")
        try space.fixture(Self.halfTransparent, "alpha.png")
        let rows = [
            ["src.png", "a.jxl", ""], ["src.png", "b.gif", ""], ["src.png", "c.tif", ""],
            ["src.png", "d.{ext}", "tiff"], ["alpha.png", "e.jxl", ""], ["alpha.png", "f.gif", ""],
            ["alpha.png", "g.tiff", ""],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "format"], rows),
                                      ["--width", "60"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        let expected: [(String, String, String, (Data) -> Bool)] = [
            ("a.jxl", "jxl", "jxlload", Magic.isJXL), ("b.gif", "gif", "gifload", Magic.isGIF),
            ("c.tif", "tiff", "tiffload", Magic.isTIFF), ("d.tif", "tiff", "tiffload", Magic.isTIFF),
            ("e.jxl", "jxl", "jxlload", Magic.isJXL), ("f.gif", "gif", "gifload", Magic.isGIF),
            ("g.tiff", "tiff", "tiffload", Magic.isTIFF),
        ]
        for (line, (out, format, loader, check)) in zip(2..., expected) {
            let row = try #require(report.row(line))
            #expect(row.out == out && row.format == format && row.status == "written", "row \(line)")
            let data = try Data(contentsOf: space.output(out))
            #expect(check(data), "\(out) starts with \(Array(data.prefix(12)))")
            let facts = try ImageFacts.read(space.output(out))
            #expect(facts.loader == loader && facts.width == 60 && facts.isEightBit, "\(out): \(facts)")
            // libvips reads every GIF as RGBA.
            #expect(facts.bands == (line >= 6 || format == "gif" ? 4 : 3), "\(out): \(facts)")
        }
        // Colours survive each format: quadrants, lossless in GIF (four colours) and TIFF.
        for name in ["a.jxl", "b.gif", "c.tif"] {
            let image = try space.pixels(name)
            let tolerance = name == "a.jxl" ? 16 : 2
            #expect(image.pixel(10, 10, is: .red, tolerance: tolerance), "\(name) \(image.pixel(10, 10))")
            #expect(image.pixel(50, 30, is: .yellow, tolerance: tolerance), "\(name) \(image.pixel(50, 30))")
        }
        // Transparent left, opaque blue right, in every format with alpha.
        for name in ["e.jxl", "f.gif", "g.tiff"] {
            let image = try space.pixels(name)
            #expect(image.pixel(10, 15)[3] == 0, "\(name) \(image.pixel(10, 15))")
            #expect(image.pixel(50, 15)[3] == 255 && image.pixel(50, 15, is: .blue, tolerance: 16),
                    "\(name) \(image.pixel(50, 15))")
        }
    }

    @Test("Every input format is read by content: JPEG, PNG, WebP, GIF, TIFF, AVIF, JPEG XL, HEIC")
    func inputFormats() async throws {
        let space = try Workspace()
        let source = RawImage.quadrants(width: 64, height: 64)
        let formats: [OutputFormat] = [.jpeg, .png, .webp, .gif, .tiff, .avif, .jxl]
        var rows: [[String]] = []
        for format in formats {
            // A misleading extension: the content decides.
            try space.fixture(source, "src-\(format.rawValue).bin", as: format, quality: 95)
            rows.append(["src-\(format.rawValue).bin", "\(format.rawValue).png"])
        }
        if let corpora = TestPaths.corpora {
            rows.append([corpora.appendingPathComponent("pillow/Tests/images/avif/hopper.heif").path, "heic.png"])
        }
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "32x32"])
        #expect(run.status == 0, "\(run.result.stderr)")
        for format in formats {
            let image = try space.pixels("\(format.rawValue).png")
            let tolerance = [.png, .gif, .tiff].contains(format) ? 3 : 24
            #expect(image.width == 32 && image.height == 32, "\(format)")
            for (x, y, colour) in [(6, 6, Colour.red), (26, 6, .green), (6, 26, .blue), (26, 26, .yellow)] {
                #expect(image.pixel(x, y, is: colour, tolerance: tolerance),
                        "\(format) at (\(x),\(y)): \(image.pixel(x, y))")
            }
        }
        if TestPaths.hasCorpora {
            let heic = try ImageFacts.read(space.output("heic.png"))
            #expect(heic.width == 32 && heic.height == 32 && heic.bands == 3, "\(heic)")
        }
    }

    @Test("Encoder flags: progressive JPEG, PNG palette, WebP effort; each its own cache entry")
    func encoderFlags() async throws {
        let space = try Workspace()
        let gradient = RawImage(width: 96, height: 64) { x, y in
            Colour(r: UInt8(x * 2), g: UInt8(y * 3), b: 90)
        }
        try space.fixture(gradient, "src.png")
        let manifest = CSV.manifest(["src", "out"], [["src.png", "a.jpg"], ["src.png", "b.png"], ["src.png", "c.webp"]])
        let plain = try await space.run(manifest: manifest, ["--size", "48"])
        #expect(plain.status == 0, "\(plain.result.stderr)")
        let baseline = try Data(contentsOf: space.output("a.jpg"))
        let truecolour = try Data(contentsOf: space.output("b.png"))
        let webpDefault = try Data(contentsOf: space.output("c.webp"))
        // SOF0 (baseline) in the plain JPEG, SOF2 (progressive) with the flag.
        #expect(FixtureBytes.contains(baseline, [0xFF, 0xC0]) && !FixtureBytes.contains(baseline, [0xFF, 0xC2]))
        #expect(truecolour[25] == 2, "PNG colour type \(truecolour[25])")  // IHDR: truecolour

        let tuned = try await space.run(manifest: manifest, [
            "--size", "48", "--jpeg-progressive", "--png-palette", "--webp-effort", "0",
        ])
        #expect(tuned.status == 0, "\(tuned.result.stderr)")
        for line in 2...4 { #expect(tuned.report?.row(line)?.cache == "miss", "row \(line)") }
        let progressive = try Data(contentsOf: space.output("a.jpg"))
        #expect(FixtureBytes.contains(progressive, [0xFF, 0xC2]))
        let palette = try Data(contentsOf: space.output("b.png"))
        #expect(palette[25] == 3, "PNG colour type \(palette[25])")  // IHDR: indexed colour
        #expect(palette.count < truecolour.count)
        #expect(try Data(contentsOf: space.output("c.webp")) != webpDefault)
        let image = try space.pixels("b.png")
        #expect(image.pixel(24, 16, is: Colour(r: 96, g: 96, b: 90), tolerance: 12), "\(image.pixel(24, 16))")

        let invalid = try await space.run(manifest: manifest, ["--webp-effort", "7"])
        #expect(invalid.status == 2 && invalid.result.stderr.contains("--webp-effort"))
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
