import CVips
import Foundation
import Testing
@testable import Thumbgen

/// `page`: which page or image of a multi-page source (PDF, TIFF, HEIF), counted from 1; PDF
/// and SVG drawn from the vector at the density their box needs; the folder walk takes PDF and
/// SVG files only when their loaders are enabled.
@Suite("End to end: pages and vector sources")
struct PageTests {
    static var hasGhostscript: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/gs") }

    /// A three-page PDF that Ghostscript writes from a PostScript program: page 1 A4 and all
    /// red; page 2 A4, white, with a blue rectangle from (100.3, 200) to (300.7, 600) points
    /// (from the bottom left, as PostScript counts); page 3 green, 300 × 200 points.
    static func pdf(in space: Workspace, name: String = "three.pdf") async throws -> URL {
        let program = """
            %!PS
            << /PageSize [595 842] >> setpagedevice
            1 0 0 setrgbcolor 0 0 595 842 rectfill showpage
            1 1 1 setrgbcolor 0 0 595 842 rectfill 0 0 1 setrgbcolor 100.3 200 200.4 400 rectfill showpage
            << /PageSize [300 200] >> setpagedevice
            0 1 0 setrgbcolor 0 0 300 200 rectfill showpage

            """
        let source = try space.folder.write(program, to: "pages.ps")
        let output = space.folder.file(name)
        let status = try await ToolRun.run("/usr/bin/gs", ["-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite",
                                                           "-sOutputFile=\(output.path)", source.path])?.status
        try #require(status == 0, "Ghostscript could not write \(name)")
        return output
    }

    /// How many pixels of row `y`, between `xs`, are neither the white nor the blue around a
    /// blue rectangle's edge (their red band from 5 to 250): the width of the edge.
    static func edgeWidth(_ image: PixelImage, y: Int, xs: Range<Int>) -> Int {
        xs.filter { (5...250).contains(Int(image.pixel($0, y)[0])) }.count
    }

    @Test("PDF: page 2 differs from page 1 (one source, one size); page 2 at 1280 px is drawn from the vector, its edges at most 2 px wide where the 72-dpi raster scaled up spreads them over 3 or more; page 3 has its own size; page 4 fails naming the page and the 3 pages; 0 and a word are row errors naming the column",
          .enabled(if: hasGhostscript, "needs Ghostscript (scripts/setup --tests installs it)"))
    func pdfPages() async throws {
        let space = try Workspace("pages")
        _ = try await Self.pdf(in: space)
        let rows: [[String]] = [
            ["three.pdf", "p1.png", "300", "", ""], ["three.pdf", "p2.png", "300", "2", ""],
            ["three.pdf", "p2-1280.png", "1280", "2", ""], ["three.pdf", "p2-72dpi.png", "", "2", ""],
            ["three.pdf", "p3.png", "", "3", ""], ["three.pdf", "p4.png", "300", "4", ""],
            ["three.pdf", "p0.png", "300", "0", ""], ["three.pdf", "px.png", "300", "two", ""],
        ]
        let manifest = CSV.manifest(["src", "out", "size", "page", "upscale"], rows)
        let run = try await space.run(manifest: manifest, ["--enable-loader", "pdfload"])
        #expect(run.status == 1, "\(run.result.stderr)")
        let report = try #require(run.report)

        // Page 1 is red everywhere; page 2 is white with a blue rectangle whose centre,
        // (200.5, 442) points from the top left, is at (101, 223) pixels at 300/595.
        let one = try space.pixels("p1.png"), two = try space.pixels("p2.png")
        #expect(one.width == 300 && two.width == 300 && one.height == two.height)
        #expect(one.pixel(101, 223, is: Colour(r: 255, g: 0, b: 0)), "\(one.pixel(101, 223))")
        #expect(two.pixel(101, 223, is: Colour(r: 0, g: 0, b: 255)), "\(two.pixel(101, 223))")
        #expect(two.pixel(10, 10, is: .white), "\(two.pixel(10, 10))")
        #expect((one.meanAbsoluteDifference(from: two) ?? 0) > 100)

        // At 1280 the page is 2.15 times its 72-dpi size; the edge at 100.3 pt falls at 215.8 px.
        let sharp = try space.pixels("p2-1280.png")
        #expect(sharp.width == 1280 && sharp.height == 1811, "\(sharp.width)×\(sharp.height)")
        #expect(sharp.pixel(640, 951, is: Colour(r: 0, g: 0, b: 255)), "\(sharp.pixel(640, 951))")
        let drawn = Self.edgeWidth(sharp, y: 951, xs: 190..<250)
        #expect(drawn <= 2, "\(drawn) pixels of edge")
        // The old way: the page rasterised at 72 dpi (its size without a box), then scaled up.
        let raster = try space.pixels("p2-72dpi.png")
        #expect(raster.width == 595 && raster.height == 842, "\(raster.width)×\(raster.height)")
        let upscaled = try PixelImage.load(space.output("p2-72dpi.png"), resizedTo: (1280, 1811))
        let blurred = Self.edgeWidth(upscaled, y: 951, xs: 190..<250)
        #expect(blurred >= 3, "\(blurred) pixels of edge in the upscale")

        // The header is the chosen page's: page 3 is 300 × 200 points, green.
        let three = try space.pixels("p3.png")
        #expect(three.width == 300 && three.height == 200 && three.pixel(150, 100, is: Colour(r: 0, g: 255, b: 0)))

        let past = try #require(report.row(7)?.error)
        #expect(past.code == "invalid_row" && past.message.contains("page 4") && past.message.contains("3 pages"),
                "\(past.message)")
        for line in [8, 9] {
            let error = try #require(report.row(line)?.error)
            #expect(error.code == "invalid_row" && error.message.contains("column page"), "\(error.message)")
        }
        #expect(report.rows.filter { $0.status == "written" }.count == 5)

        // Only a page other than the first is in the key: every other key is what it was.
        var spec = ThumbnailSpec()
        let plainKey = spec.identifier
        spec.page = 1
        #expect(spec.identifier == plainKey)
        spec.page = 2
        #expect(spec.identifier == plainKey + ";page=2")

        // Without pdfload (and without the cache, which holds the outputs already) the rows
        // fail as before.
        let blocked = try await space.run(manifest: manifest, ["--no-cache"])
        #expect(blocked.report?.row(2)?.error?.code == "unsupported_format")
    }

    @Test("TIFF: page 2 of a three-page TIFF is its second image, in rows beside page 1 at the same size and page 2 at another; page 4 fails naming the 3 pages")
    func tiffPages() async throws {
        let space = try Workspace("pages")
        let colours: [Colour] = [.red, .blue, .green]
        let stacked = RawImage(width: 64, height: 48 * 3) { _, y in colours[y / 48] }
        let image = try stacked.vipsImage()
        defer { tg_unref(image) }
        tg_set_int(image, "page-height", 48)
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        try #require(tg_tiffsave_buffer(image, &buffer, &length, 1) == 0)
        let bytes = Data(bytes: try #require(buffer), count: length)
        g_free(buffer)
        try space.folder.write(bytes, to: "three.tif")
        let opened = try SourceDecoder().open(path: space.folder.file("three.tif").path, page: 2)
        #expect(opened.header.frames == 3 && opened.header.orientedHeight == 48 && opened.header.page == 2)

        let rows: [[String]] = [
            ["three.tif", "one.png", "32", ""], ["three.tif", "two.png", "32", "2"],
            ["three.tif", "two-16.png", "16", "2"], ["three.tif", "four.png", "32", "4"],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "page"], rows))
        #expect(run.status == 1, "\(run.result.stderr)")
        let one = try space.pixels("one.png"), two = try space.pixels("two.png"), small = try space.pixels("two-16.png")
        #expect(one.width == 32 && one.height == 24 && one.pixel(16, 12, is: .red), "\(one.pixel(16, 12))")
        #expect(two.width == 32 && two.height == 24 && two.pixel(16, 12, is: .blue), "\(two.pixel(16, 12))")
        #expect(small.width == 16 && small.pixel(8, 6, is: .blue), "\(small.pixel(8, 6))")
        let past = try #require(run.report?.row(5)?.error)
        #expect(past.code == "invalid_row" && past.message.contains("page 4") && past.message.contains("3 pages"),
                "\(past.message)")
    }

    @Test("HEIF: page 2 is the file's second image at its own size (portrait after a landscape first), from its own embedded thumbnail when that is big enough; page 3 fails naming the 2 pages",
          .enabled(if: HEIFThumbnailTests.hasEncoder, "needs heif-enc (scripts/setup --tests installs libheif-examples)"))
    func heifPages() async throws {
        let space = try Workspace("pages")
        let red = try space.fixture(RawImage(width: 120, height: 80) { _, _ in .red }, "red.jpg", as: .jpeg, quality: 95)
        let blue = try space.fixture(RawImage(width: 80, height: 120) { _, _ in .blue }, "blue.jpg", as: .jpeg, quality: 95)
        let output = space.folder.file("two.heic").path
        // A thumbnail of at most 32 px: the second image's is about 21 × 32, which a
        // 16-px row of page 2 takes (the first page's, if any, is red).
        let status = try await ToolRun.run("/usr/bin/heif-enc", ["-t", "32", "-q", "90", red.path, blue.path, "-o", output])?.status
        try #require(status == 0, "heif-enc could not write two.heic")
        let second = try SourceDecoder().open(path: output, page: 2)
        #expect(second.header.orientedWidth == 80 && second.header.orientedHeight == 120 && second.header.frames == 2)
        let thumbnail = try #require(second.heifThumbnailScale)
        #expect(thumbnail < 0.5, "\(thumbnail)")

        let rows: [[String]] = [
            ["two.heic", "one.png", "40", ""], ["two.heic", "two.png", "40", "2"],
            ["two.heic", "two-small.png", "16", "2"], ["two.heic", "three.png", "16", "3"],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "page"], rows))
        #expect(run.status == 1, "\(run.result.stderr)")
        let one = try space.pixels("one.png"), two = try space.pixels("two.png"), small = try space.pixels("two-small.png")
        #expect(one.width == 40 && one.height == 27 && one.pixel(20, 13, is: .red, tolerance: 12), "\(one.pixel(20, 13))")
        #expect(two.width == 40 && two.height == 60 && two.pixel(20, 30, is: .blue, tolerance: 12), "\(two.pixel(20, 30))")
        #expect(small.width == 16 && small.height == 24 && small.pixel(8, 12, is: .blue, tolerance: 12), "\(small.pixel(8, 12))")
        let past = try #require(run.report?.row(5)?.error)
        #expect(past.code == "invalid_row" && past.message.contains("page 3") && past.message.contains("2 pages"),
                "\(past.message)")
    }

    @Test("SVG: a 40 × 20 drawing at 400 px (no upscale needed) is drawn at that size, its edges at most 2 px wide (the 40-px raster scaled up: 3 or more)")
    func svgDensity() async throws {
        let space = try Workspace("pages")
        // A blue rectangle from x 10.35 of 40 units: at 10 px a unit its left edge is at 103.5 px.
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#ffffff"/><rect x="10.35" y="0" width="20" height="20" fill="#0000ff"/></svg>"##
        try space.folder.write(svg, to: "a.svg")
        let rows = [["a.svg", "big.png", "400", ""], ["a.svg", "small.png", "", ""]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "upscale"], rows),
                                      ["--enable-loader", "svgload"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let big = try space.pixels("big.png")
        #expect(big.width == 400 && big.height == 200)
        let drawn = Self.edgeWidth(big, y: 100, xs: 80..<130)
        #expect(drawn <= 2, "\(drawn) pixels of edge")
        let upscaled = try PixelImage.load(space.output("small.png"), resizedTo: (400, 200))
        #expect(Self.edgeWidth(upscaled, y: 100, xs: 80..<130) >= 3)
    }

    @Test("The folder walk takes SVG and PDF files only when their loaders are enabled; without them the run writes the rest and exits 0")
    func folderWalk() async throws {
        let space = try Workspace("pages")
        let svg = ##"<?xml version="1.0" encoding="UTF-8"?>\##n<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#ff0000"/></svg>"##
        try space.folder.write(svg, to: "art/a.svg")
        try space.fixture(.quadrants(width: 40, height: 20), "art/b.png")
        try space.folder.write("<html><body>not an image</body></html>", to: "art/c.html")
        let hasPDF = Self.hasGhostscript
        if hasPDF {
            let pdf = try await Self.pdf(in: space)
            try FileManager.default.moveItem(at: pdf, to: space.folder.file("art/d.pdf"))
        }
        func render(_ extra: [String]) async throws -> (CLIResult, [String]) {
            try? FileManager.default.removeItem(at: space.out)
            let result = try await CLIRunner.run(["art", "--out", "out", "--size", "20", "--format", "png", "--no-cache"] + extra,
                                                 in: space.folder.url)
            return (result, space.outputFiles.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted())
        }
        let (plain, plainFiles) = try await render([])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plainFiles == ["b-20x10.png"])
        let (svgOnly, svgFiles) = try await render(["--enable-loader", "svgload"])
        #expect(svgOnly.status == 0, "\(svgOnly.stderr)")
        #expect(svgFiles == ["a-20x10.png", "b-20x10.png"])
        let listed = try await CLIRunner.run(["manifest", "art", "--enable-loader", "svgload"], in: space.folder.url)
        #expect(listed.stdout == "src,dir\nart/a.svg,\nart/b.png,\n", "\(listed.stdout)\(listed.stderr)")
        let unlisted = try await CLIRunner.run(["manifest", "art"], in: space.folder.url)
        #expect(unlisted.stdout == "src,dir\nart/b.png,\n", "\(unlisted.stdout)\(unlisted.stderr)")
        if hasPDF {
            let (both, files) = try await render(["--enable-loader", "svgload", "--enable-loader", "pdfload"])
            #expect(both.status == 0, "\(both.stderr)")
            #expect(files == ["a-20x10.png", "b-20x10.png", "d-20x28.png"])
        }
    }

    @Test("The walk's vector sniff agrees with libvips' rules: %PDF within 32 bytes; <svg in any case within 1,000 after valid UTF-8; nothing else")
    func vectorSniff() {
        func loader(_ text: String, padTo length: Int = 40) -> String? {
            var bytes = Array(text.utf8)
            bytes += [UInt8](repeating: 0x20, count: max(0, length - bytes.count))
            return FormatSniffer.vectorLoader(forHeader: bytes)
        }
        #expect(loader("%PDF-1.7\n") == "pdfload")
        #expect(loader("\r\n\r\n  junk %PDF-1.4\n") == "pdfload")
        #expect(loader(String(repeating: " ", count: 30) + "%PDF-1.4") == nil)
        #expect(loader("%PDF", padTo: 4) == nil)
        #expect(loader("<?xml version=\"1.0\"?>\n<!-- é -->\n<SVG xmlns=\"http://www.w3.org/2000/svg\">") == "svgload")
        #expect(loader(String(repeating: " ", count: 1000) + "<svg>") == nil)
        #expect(FormatSniffer.vectorLoader(forHeader: [0xFF, 0xFE] + Array("<svg>".utf8)) == nil)
        #expect(loader("<html><body><p>no drawing here</p></body></html>") == nil)
    }

    @Test("The cell: empty or 1 is the first page; 0, a negative number or a word is refused naming the column")
    func parsing() throws {
        let parser = RowParser(baseDirectory: "/")
        func parse(_ page: String) -> Result<ThumbnailRequest, RowError> {
            parser.parse(ManifestRecord(line: 2, values: [.src: "a.pdf", .page: page]))
        }
        #expect((try? parse("").get().spec.page) == 1)
        #expect((try? parse(" 1 ").get().spec.page) == 1)
        #expect((try? parse("3").get().spec.page) == 3)
        for bad in ["0", "-1", "two", "1.5"] {
            guard case .failure(let error) = parse(bad) else {
                Issue.record("\(bad) was taken")
                continue
            }
            #expect(error.column == "page", "\(bad)")
        }
        let defaulted = RowParser(defaults: [.page: "2"], baseDirectory: "/")
        #expect((try? defaulted.parse(ManifestRecord(line: 2, values: [.src: "a.pdf"])).get().spec.page) == 2)
    }
}
