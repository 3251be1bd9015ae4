import CVips
import Foundation
import Testing
@testable import Thumbgen

/// `SourceFacts`: a site image's upright size, alpha and frames from its first bytes, checked
/// against what libvips reads of the same files.
@Suite("Site: source facts from a file's first bytes")
struct SourceFactsTests {
    static let photo = RawImage(width: 300, height: 200) { x, y in Colour(r: UInt8(x % 256), g: UInt8(y % 256), b: 90) }

    @Test("JPEG, PNG, WebP (lossy, lossless, extended) and GIF: size, alpha, animation", arguments: [
        (OutputFormat.jpeg, false), (.png, false), (.png, true), (.webp, false), (.webp, true), (.gif, false),
    ])
    func formats(format: OutputFormat, alpha: Bool) throws {
        var image = RawImage(width: 300, height: 200, alpha: alpha) { x, y in
            Colour(r: UInt8(x % 256), g: UInt8(y % 256), b: 90, a: alpha ? UInt8((x + y) % 256) : 255)
        }
        if !alpha { image = Self.photo }
        let data = try image.encoded(as: format)
        let facts = try #require(SourceFacts.read([UInt8](data)))
        #expect(facts.width == 300 && facts.height == 200)
        // A GIF's transparency is a frame's: it counts as having alpha (a PNG fallback).
        #expect(facts.hasAlpha == (alpha || format == .gif))
        #expect(!facts.animated)
    }

    @Test("A JPEG turned a quarter by its EXIF orientation is as wide as it stands", arguments: [1, 3, 6, 8])
    func orientation(_ orientation: UInt16) throws {
        let jpeg = FixtureBytes.jpeg(try Self.photo.encoded(as: .jpeg), withExifOrientation: orientation)
        let facts = try #require(SourceFacts.read([UInt8](jpeg)))
        let turned = orientation >= 5
        #expect(facts.width == (turned ? 200 : 300) && facts.height == (turned ? 300 : 200))
    }

    @Test("Animated GIF and WebP are animations")
    func animations() throws {
        let strip = RawImage(width: 40, height: 90) { _, y in Colour(r: UInt8(y * 2), g: 0, b: 0) }
        for format in [OutputFormat.gif, .webp] {
            let data = try strip.encodedAnimation(pageHeight: 30, as: format)
            let facts = try #require(SourceFacts.read([UInt8](data)), "\(format)")
            #expect(facts.animated, "\(format)")
            #expect(facts.width == 40 && facts.height == 30, "\(format): \(facts)")
        }
    }

    @Test("A GIF whose first frame runs past the first read is read further: a still is a still, an animation an animation")
    func longFirstFrame() throws {
        let folder = try TemporaryDirectory("facts")
        // Noise: each frame far over the first read's 16 KiB.
        var state: UInt32 = 46
        let noise = RawImage(width: 300, height: 600) { _, _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Colour(r: UInt8(state >> 24), g: UInt8((state >> 16) & 0xff), b: UInt8((state >> 8) & 0xff))
        }
        let still = try folder.write(try noise.encoded(as: .gif), to: "still.gif")
        let moving = try folder.write(try noise.encodedAnimation(pageHeight: 300, as: .gif), to: "moving.gif")
        #expect(try Data(contentsOf: still).count > SourceFacts.readLength * 4)
        let stillFacts = try #require(SourceFacts.read(path: still.path))
        #expect(!stillFacts.animated && stillFacts.width == 300 && stillFacts.height == 600)
        let movingFacts = try #require(SourceFacts.read(path: moving.path))
        #expect(movingFacts.animated && movingFacts.height == 300)
        // Cut short inside its first frame, nothing more to read: left alone as if animated.
        let cut = try Data(contentsOf: moving).prefix(SourceFacts.readLength * 2)
        #expect(SourceFacts.read([UInt8](cut), whole: false) == nil)
        #expect(SourceFacts.read([UInt8](cut), whole: true)?.animated == true)
    }

    /// JPEG XL's header is bit-packed: each size takes another path through it (a multiple of
    /// 8 up to 256 stored in eighths, a ratio, 9 to 30 bits), bare or in the container.
    @Test("JPEG XL: the size and alpha libvips reads, bare and in the container (jxlc or jxlp), on every path of the size header",
          arguments: [(64, 64, false), (800, 600, false), (333, 777, false), (1920, 1080, false), (300, 200, true),
                      (248, 24, true), (5000, 9, false)])
    func jpegXL(width: Int, height: Int, alpha: Bool) throws {
        let image = RawImage(width: width, height: height, alpha: alpha) { x, y in
            Colour(r: UInt8(x % 256), g: UInt8(y % 256), b: 90, a: alpha ? UInt8((x + y) % 256) : 255)
        }
        // libjxl takes four bands only as sRGB with alpha, not libvips' guess for memory (multiband).
        let pixels = try image.vipsImage()
        defer { tg_unref(pixels) }
        pixels.pointee.Type = VIPS_INTERPRETATION_sRGB
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        #expect(tg_jxlsave_buffer(pixels, &buffer, &length, 90, 3, 0) == 0)
        let data = Data(bytes: try #require(buffer), count: length)
        g_free(buffer)
        let folder = try TemporaryDirectory("facts-jxl")
        let file = try folder.write(data, to: "image.jxl")
        try VipsRuntime.start()
        let loaded = try #require(testLoadImage(file.path, access: VIPS_ACCESS_SEQUENTIAL, failOn: VIPS_FAIL_ON_NONE))
        defer { tg_unref(loaded) }
        let vips = (Int(vips_image_get_width(loaded)), Int(vips_image_get_height(loaded)), vips_image_hasalpha(loaded) != 0)
        #expect(vips == (width, height, alpha))
        let bare = [UInt8](data)
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + body.count)
            return [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
                + Array(type.utf8) + body
        }
        let start = SourceFacts.jxlContainer + box("ftyp", Array("jxl \0\0\0\0jxl ".utf8))
        let codestream = bare.starts(with: SourceFacts.jxlSignature) ? bare : []
        #expect(!codestream.isEmpty, "libvips wrote a bare codestream")
        for file in [bare, start + box("jxlc", codestream), start + box("jxlp", [0, 0, 0, 0] + codestream)] {
            let facts = try #require(SourceFacts.read(file))
            #expect(facts == SourceFacts(width: vips.0, height: vips.1, hasAlpha: vips.2, animated: false))
        }
        // Cut inside its size header: no facts.
        #expect(SourceFacts.read(Array(bare.prefix(3))) == nil)
    }

    @Test("Other formats and damaged headers have none")
    func none() throws {
        #expect(SourceFacts.read(Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)) == nil)
        let jpeg = [UInt8](try Self.photo.encoded(as: .jpeg))
        #expect(SourceFacts.read(Array(jpeg.prefix(20))) == nil)
        #expect(SourceFacts.read([0xFF, 0xD8, 0xFF]) == nil)
        #expect(SourceFacts.read(Array("RIFF....WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 20)) == nil)
    }

    @Test("TIFF, HEIC and AVIF: the size libvips loads them at (their orientation applied) and their alpha, on every corpus file libvips reads",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func tiffAndHEIF() throws {
        let corpora = try #require(TestPaths.corpora)
        let catalogue = try String(contentsOf: corpora.appendingPathComponent("CATALOGUE.tsv"), encoding: .utf8)
        let lines = catalogue.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first)
        func column(_ name: String) throws -> Int { try #require(header.firstIndex(of: name)) }
        let (path, loader, width, height, bands, interpretation, status, pages, orientation) = try (
            column("path"), column("vips-loader"), column("width"), column("height"), column("bands"),
            column("interpretation"), column("header"), column("n-pages"), column("orientation"))
        var checked = 0, mismatched: [String] = []
        for row in lines.dropFirst() where row.count > pages && row[status] == "ok"
            && (row[loader] == "tiffload" || row[loader] == "heifload") {
            let file = corpora.appendingPathComponent(row[path]).path
            // Four bands are CMYK, or 8-bit CIELAB packed as LabQ, without alpha; else RGBA.
            let expectedAlpha = row[bands] == "2" || row[bands] == "5"
                || (row[bands] == "4" && !["cmyk", "lab", "labq"].contains(row[interpretation]))
            guard let facts = SourceFacts.read(path: file) else {
                mismatched.append("\(row[path]): no facts")
                continue
            }
            checked += 1
            // libvips's header is upright for HEIF (libheif turns it); a TIFF's orientation is
            // its own field, which thumbgen applies.
            let turned = (5...8).contains(Int(row[orientation]) ?? 1)
            let (w, h) = turned ? (Int(row[height]), Int(row[width])) : (Int(row[width]), Int(row[height]))
            if facts.width != w || facts.height != h || facts.hasAlpha != expectedAlpha {
                mismatched.append("\(row[path]): \(facts) against \(row[width])x\(row[height]) bands \(row[bands])")
            }
        }
        #expect(checked > 40, "\(checked) files")
        #expect(mismatched.isEmpty, "\(mismatched.count) of \(checked): \(mismatched.prefix(20).joined(separator: "\n"))")
    }

    @Test("Crafted TIFF and HEIF headers give no facts rather than stopping the process")
    func craftedHeaders() throws {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let size = body.count + 8
            return [UInt8(size >> 24 & 255), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)]
                + Array(type.utf8) + body
        }
        // An ispe of 0xFFFFFFFF squared (its area overflows), and a version-1 pitm cut short.
        let ispe = box("ispe", [0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255])
        let meta = box("meta", [0, 0, 0, 0] + box("iprp", box("ipco", ispe)) + box("pitm", [1, 0, 0, 0, 0, 1]))
        let heif = box("ftyp", Array("avifmif1".utf8)) + meta
        #expect(SourceFacts.read(heif) == nil)
        // A BigTIFF whose first directory's offset has its top bit set, and one past the file.
        let folder = try TemporaryDirectory("crafted-tiff")
        for offset: [UInt8] in [[0, 0, 0, 0, 0, 0, 0, 0x80], [0, 0, 0, 0x10, 0, 0, 0, 0]] {
            let tiff: [UInt8] = [0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0] + offset + [UInt8](repeating: 0, count: 64)
            let url = try folder.write(Data(tiff), to: "big.tif")
            #expect(SourceFacts.read(path: url.path) == nil)
        }
    }

    @Test("A page's own width too large for a whole number leaves the height out, rather than stopping the process")
    func hugeAuthoredWidth() {
        let tag = Array("<img src=a.jpg width=9000000000000000000>".utf8)
        let element = SiteElement(replacing: 0..<tag.count, tag: tag, insertionPoint: tag.count - 1,
                                  attributes: ["src": "a.jpg", "width": "9000000000000000000"], source: 0, line: 1)
        let markup = String(decoding: PictureRewrite.markup(element, intrinsic: (1000, 3000), modern: [], fallback: "a-320.jpg 320w",
                                                            sizes: "100vw", background: nil, first: true), as: UTF8.self)
        #expect(markup.contains("srcset=\"a-320.jpg 320w\"") && !markup.contains("height="))
    }
}
