import CVips
import Foundation
import Testing
@testable import Thumbgen

/// Passed-through JPEG and PNG sources lose their metadata while their compressed data, and so
/// their decoded pixels, stay exactly the same; anything unreadable gives nil.
///
/// Fixtures are libvips output (with and without metadata) into which segments and chunks are
/// spliced, so that the expected result is known byte for byte.
@Suite("Lossless metadata stripping")
struct LosslessMetadataTests {
    // MARK: - JPEG

    @Test("JPEG: EXIF, XMP, ICC, IPTC, APP15, COM and JFXX go; the rest is byte for byte libvips'")
    func jpegSegmentsDropped() throws {
        let clean = try VipsFixture.save(Self.picture(), "jpegsave_buffer", "Q=90,strip=true")
        let jfxx = JPEGBytes.segment(0xE0, Array("JFXX\0".utf8) + [0x13])  // a JFIF extension
        let dirty = JPEGBytes.inserting(Self.jpegMetadata + [jfxx], into: clean)
        let stripped = try #require(JPEGMetadata.stripped(dirty))
        #expect(stripped == clean)
        #expect(JPEGMetadata.stripped(stripped) == stripped)
        try expectSamePixels(dirty, stripped, as: "jpg")
    }

    @Test("JPEG: JFIF is kept without its thumbnail, Adobe without trailing bytes")
    func jpegJFIFAndAdobeKept() throws {
        let clean = try VipsFixture.save(Self.picture(), "jpegsave_buffer", "Q=90,strip=true")
        let jfif = Array("JFIF\0".utf8) + [1, 2, 1, 0, 72, 0, 72]
        let adobe = Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1]
        let thumbnail: [UInt8] = [1, 1, 9, 9, 9]  // 1×1, then its one RGB pixel
        let dirty = JPEGBytes.inserting([JPEGBytes.segment(0xE0, jfif + thumbnail),
                                         JPEGBytes.segment(0xEE, adobe + [7, 7])], into: clean)
        let expected = JPEGBytes.inserting([JPEGBytes.segment(0xE0, jfif + [0, 0]),
                                            JPEGBytes.segment(0xEE, adobe)], into: clean)
        #expect(JPEGMetadata.stripped(dirty) == expected)
    }

    @Test("JPEG: Adobe APP14 saying RGB survives, so the colours do")
    func jpegAdobeTransformKept() throws {
        let clean = try VipsFixture.save(Self.picture(), "jpegsave_buffer", "Q=90,strip=true")
        // Transform 0: three channels are RGB, not YCbCr.
        let rgb = JPEGBytes.segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 0])
        let dirty = JPEGBytes.inserting(Self.jpegMetadata + [rgb], into: clean)
        let stripped = try #require(JPEGMetadata.stripped(dirty))
        #expect(stripped == JPEGBytes.inserting([rgb], into: clean))
        try expectSamePixels(dirty, stripped, as: "jpg")
        // Without the marker libjpeg would read the same data as YCbCr: the check above matters.
        #expect(try Self.pixels(clean, as: "jpg").pixels != Self.pixels(stripped, as: "jpg").pixels)
    }

    @Test("JPEG progressive: every scan and table is kept, metadata between scans goes")
    func jpegProgressive() throws {
        let clean = try VipsFixture.save(Self.picture(), "jpegsave_buffer",
                                         "Q=90,strip=true,interlace=true")
        let scans = JPEGBytes.scanStarts(clean)
        try #require(scans.count > 2)
        var dirty = JPEGBytes.inserting(Self.jpegMetadata, into: clean)
        let shift = dirty.count - clean.count
        dirty.insert(contentsOf: JPEGBytes.segment(0xFE, Array("between scans".utf8))
                     + JPEGBytes.segment(0xE1, Self.exif), at: scans[2] + shift)
        let stripped = try #require(JPEGMetadata.stripped(dirty))
        #expect(stripped == clean)
        try expectSamePixels(dirty, stripped, as: "jpg")
    }

    @Test("JPEG: fill bytes before markers go, and so does everything after EOI")
    func jpegFillBytesAndTrailer() throws {
        let clean = try VipsFixture.save(Self.picture(), "jpegsave_buffer", "Q=90,strip=true")
        let secondFrame = JPEGBytes.inserting([JPEGBytes.segment(0xE1, Self.exif)], into: clean)
        var dirty = clean
        dirty.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: dirty.count - 2)  // before EOI
        dirty.insert(contentsOf: [0xFF, 0xFF], at: 2)  // before the first DQT
        dirty.append(secondFrame)  // an MPO's second image, with its own EXIF
        let stripped = try #require(JPEGMetadata.stripped(dirty))
        #expect(stripped == clean)
        try expectSamePixels(dirty, stripped, as: "jpg")
    }

    @Test("JPEG written by libvips with metadata: none is left, the scan data is untouched")
    func jpegFromLibvips() throws {
        let source = try VipsFixture.save(Self.picture(metadata: true), "jpegsave_buffer", "Q=90")
        #expect(Set<UInt8>([0xE1, 0xE2, 0xED]).isSubset(of: JPEGBytes.headers(source).markers))
        let stripped = try #require(JPEGMetadata.stripped(source))
        let markers = JPEGBytes.headers(stripped).markers
        #expect(markers.allSatisfy { !(0xE1...0xEF).contains($0) && $0 != 0xFE })
        let sourceScan = try #require(JPEGBytes.headers(source).scan)
        let strippedScan = try #require(JPEGBytes.headers(stripped).scan)
        #expect(source[sourceScan...] == stripped[strippedScan...])
        #expect(try Self.metadataFields(source, as: "jpg").count >= 3)
        #expect(try Self.metadataFields(stripped, as: "jpg") == [])
        try expectSamePixels(source, stripped, as: "jpg")
    }

    @Test("JPEG: malformed or truncated input gives nil")
    func jpegMalformed() throws {
        let clean = try VipsFixture.save(Self.picture(), "jpegsave_buffer", "Q=90,strip=true")
        let png = try VipsFixture.save(Self.picture(), "pngsave_buffer", "strip=true")
        var longSegment = clean
        longSegment[4] = 0xFF  // the first DQT's length now runs past the end
        var shortSegment = clean
        shortSegment[4] = 0; shortSegment[5] = 1  // a length below 2
        let soi: [UInt8] = [0xFF, 0xD8]
        let scan = JPEGBytes.segment(0xDA, [1, 1, 0, 0, 0x3F, 0])
        let scanOnly = Data(soi + scan + [0x12, 0x34, 0xFF, 0xD9])
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("a PNG", png),
            ("text", Data("not a JPEG at all".utf8)),
            ("SOI only", Data(soi)),
            ("SOI then EOI", Data(soi + [0xFF, 0xD9])),
            ("segment past the end", longSegment),
            ("segment length 1", shortSegment),
            ("truncated in the headers", clean.prefix(40)),
            ("truncated in the scan (no EOI)", FixtureBytes.truncated(clean)),
            ("garbage between segments", JPEGBytes.inserting([[0x00, 0x42]], into: clean)),
            ("a scan before any frame header", scanOnly),
            ("a second SOI", JPEGBytes.inserting([soi], into: clean)),
        ]
        for (label, data) in cases {
            #expect(JPEGMetadata.stripped(data) == nil, "\(label)")
        }
    }

    // MARK: - PNG

    @Test("PNG: text, EXIF, XMP, time, background, density and private chunks go; colour chunks stay")
    func pngChunksDropped() throws {
        let clean = try VipsFixture.save(Self.picture(), "pngsave_buffer", "strip=true")
        let spliced: [[UInt8]] = [
            PNGBytes.chunk("gAMA", [0, 0, 0xB1, 0x8F]),
            PNGBytes.chunk("cHRM", [0, 0, 0x7A, 0x26, 0, 0, 0x80, 0x84, 0, 0, 0xFA, 0, 0, 0, 0x80, 0xE8,
                               0, 0, 0x75, 0x30, 0, 0, 0xEA, 0x60, 0, 0, 0x3A, 0x98, 0, 0, 0x17, 0x70]),
            PNGBytes.chunk("sRGB", [0]),
            PNGBytes.chunk("sBIT", [8, 8, 8]),
            PNGBytes.chunk("tRNS", [0, 0, 0, 0, 0, 0]),  // black is transparent
            PNGBytes.chunk("bKGD", [0, 255, 0, 255, 0, 255]),
            PNGBytes.chunk("eXIf", Array(Self.exif.dropFirst(6))),
            PNGBytes.chunk("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0".utf8) + Self.xmp),
            PNGBytes.chunk("tEXt", Array("Comment\0secret".utf8)),
            PNGBytes.chunk("tIME", [0x07, 0xE8, 1, 2, 3, 4, 5]),
            PNGBytes.chunk("prVt", [1, 2, 3]),
        ]
        var dirty = PNGBytes.inserting(spliced, into: clean)
        dirty.append(contentsOf: PNGBytes.chunk("tEXt", Array("Author\0someone".utf8)))  // after IEND
        let stripped = try #require(PNGMetadata.stripped(dirty))
        let types = PNGBytes.chunks(stripped).map(\.type)
        #expect(types.filter { $0 != "IDAT" }
                == ["IHDR", "gAMA", "cHRM", "sRGB", "sBIT", "tRNS", "IEND"])
        let kept = PNGBytes.chunks(dirty).filter { types.contains($0.type) }
        #expect(stripped == Data(PNGBytes.signature + kept.flatMap(\.bytes)))
        #expect(PNGMetadata.stripped(stripped) == stripped)
        try expectSamePixels(dirty, stripped, as: "png")
    }

    @Test("PNG written by libvips with metadata: none is left")
    func pngFromLibvips() throws {
        let source = try VipsFixture.save(Self.picture(metadata: true), "pngsave_buffer",
                                          "compression=6")
        #expect(Set(["eXIf", "iCCP", "pHYs"]).isSubset(of: PNGBytes.chunks(source).map(\.type)))
        let stripped = try #require(PNGMetadata.stripped(source))
        #expect(Set(PNGBytes.chunks(stripped).map(\.type)) == ["IHDR", "IDAT", "IEND"])
        #expect(try Self.metadataFields(source, as: "png").count >= 3)
        #expect(try Self.metadataFields(stripped, as: "png") == [])
        try expectSamePixels(source, stripped, as: "png")
    }

    @Test("PNG: malformed, truncated or animated input gives nil")
    func pngMalformed() throws {
        let clean = try VipsFixture.save(Self.picture(), "pngsave_buffer", "strip=true")
        let chunks = PNGBytes.chunks(clean)
        let ihdr = try #require(chunks.first { $0.type == "IHDR" })
        var badSignature = clean
        badSignature[1] = 0x51
        var longChunk = clean
        longChunk[8] = 0x01  // IHDR's length now runs past the end
        let withoutIHDR = Data(PNGBytes.signature
                               + chunks.filter { $0.type != "IHDR" }.flatMap(\.bytes))
        let adding = { (type: String, payload: [UInt8]) in
            PNGBytes.inserting([PNGBytes.chunk(type, payload)], into: clean)
        }
        let noImageData = Data(PNGBytes.signature + ihdr.bytes + PNGBytes.chunk("IEND", []))
        let cases: [(String, Data)] = [
            ("empty", Data()),
            ("bad signature", badSignature),
            ("a JPEG", try VipsFixture.save(Self.picture(), "jpegsave_buffer", "strip=true")),
            ("chunk past the end", longChunk),
            ("truncated in IDAT", FixtureBytes.truncated(clean)),
            ("no IEND", clean.dropLast(12)),
            ("no IHDR", withoutIHDR),
            ("IHDR twice", PNGBytes.inserting([ihdr.bytes], into: clean)),
            ("no IDAT", noImageData),
            ("an unknown critical chunk", adding("CRIT", [0])),
            ("a chunk type that is not letters", adding("a1b2", [0])),
            ("an APNG (acTL)", adding("acTL", [0, 0, 0, 1, 0, 0, 0, 0])),
        ]
        for (label, data) in cases {
            #expect(PNGMetadata.stripped(data) == nil, "\(label)")
        }
    }

    // MARK: - Real files

    @Test("Real JPEGs (EXIF, XMP, ICC, IPTC, Adobe CMYK, progressive, MPO) strip losslessly",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"),
          arguments: ["exif-orientation/Landscape_1.jpg",
                      "image-rs/tests/images/jpg/progressive/cat.jpg",
                      "pillow/Tests/images/pil_sample_rgb.jpg",
                      "pillow/Tests/images/pil_sample_cmyk.jpg",
                      "pillow/Tests/images/frozenpond.mpo"])
    func realJPEG(_ path: String) throws {
        let source = try Data(contentsOf: try #require(TestPaths.corpora).appendingPathComponent(path))
        #expect(try !Self.metadataFields(source, as: "jpg").isEmpty)
        let stripped = try #require(JPEGMetadata.stripped(source))
        #expect(try Self.metadataFields(stripped, as: "jpg") == [])
        #expect(!FixtureBytes.contains(stripped, Array("Exif\0\0".utf8)))  // MPO frames too
        #expect(JPEGMetadata.stripped(stripped) == stripped)
        try expectSamePixels(source, stripped, as: "jpg")
    }

    @Test("Real PNGs (tEXt, zTXt, iTXt, eXIf, iCCP, tIME) strip losslessly",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"),
          arguments: ["pngsuite/png/ct1n0g04.png", "libpng/pngtest.png", "pillow/Tests/images/exif.png",
                      "pillow/Tests/images/itxt_chunks.png", "pillow/Tests/images/icc_profile.png"])
    func realPNG(_ path: String) throws {
        let source = try Data(contentsOf: try #require(TestPaths.corpora).appendingPathComponent(path))
        let allowed: Set = ["IHDR", "PLTE", "IDAT", "IEND",
                            "tRNS", "gAMA", "cHRM", "sRGB", "sBIT", "cICP"]
        // libvips reads no text or EXIF after IDAT (exif.png has both there): look at chunks.
        #expect(PNGBytes.chunks(source).contains { !allowed.contains($0.type) })
        let stripped = try #require(PNGMetadata.stripped(source))
        #expect(try Self.metadataFields(stripped, as: "png") == [])
        #expect(Set(PNGBytes.chunks(stripped).map(\.type)).isSubset(of: allowed))
        #expect(PNGMetadata.stripped(stripped) == stripped)
        try expectSamePixels(source, stripped, as: "png")
    }

    @Test("A real APNG gives nil", .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func realAPNG() throws {
        let url = try #require(TestPaths.corpora)
            .appendingPathComponent("pillow/Tests/images/iss634.apng")
        #expect(PNGMetadata.stripped(try Data(contentsOf: url)) == nil)
    }
}

// MARK: - Fixtures

extension LosslessMetadataTests {
    /// An EXIF APP1 payload: "Exif\0\0", then a big-endian TIFF with Orientation = 1.
    static let exif: [UInt8] = Array("Exif\0\0".utf8)
        + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
        + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        + [0x00, 0x00, 0x00, 0x00]

    /// An empty XMP packet.
    static let xmp: [UInt8] = Array(("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf="
        + "\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/></x:xmpmeta>").utf8)

    /// A Photoshop APP13 payload with one empty IPTC resource ("8BIM", 0x0404).
    static let iptc: [UInt8] = Array("Photoshop 3.0\0".utf8)
        + [0x38, 0x42, 0x49, 0x4D, 0x04, 0x04, 0, 0, 0, 0, 0, 0]

    /// One segment of each kind that must go (the ICC payload is a stand-in).
    static let jpegMetadata: [[UInt8]] = [
        JPEGBytes.segment(0xE1, exif),
        JPEGBytes.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp),
        JPEGBytes.segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1]
                          + Array(repeating: 0x41, count: 64)),
        JPEGBytes.segment(0xED, iptc),
        JPEGBytes.segment(0xEF, [1, 2, 3]),
        JPEGBytes.segment(0xFE, Array("a comment".utf8)),
    ]

    /// A 64×48 picture with detail everywhere, so that every scan carries real data; with
    /// `metadata`, EXIF, XMP, an sRGB profile, IPTC and a PNG comment are attached for libvips to
    /// write.
    fileprivate static func picture(metadata: Bool = false) throws -> VipsFixture.Image {
        let raw = RawImage(width: 64, height: 48) { x, y in
            Colour(r: UInt8(x * 4), g: UInt8(y * 5), b: UInt8((x * y) & 0xFF))
        }
        let image = try VipsFixture.Image(raw)
        if metadata {
            image.set("exif-data", exif)
            image.set("xmp-data", xmp)
            image.set("icc-profile-data", try VipsFixture.profile("srgb"))
            image.set("iptc-data", iptc)
            vips_image_set_string(image.pointer, "png-comment-0-Title", "A title")
        }
        return image
    }

    /// Decodes `data` (written to a temporary file named `*.ext`) with libvips.
    static func pixels(_ data: Data, as ext: String) throws -> PixelImage {
        let folder = try TemporaryDirectory("lossless")
        return try PixelImage.load(try folder.write(data, to: "image.\(ext)"))
    }

    /// The metadata fields libvips finds in `data`: EXIF, XMP, IPTC, ICC, comments.
    static func metadataFields(_ data: Data, as ext: String) throws -> [String] {
        let folder = try TemporaryDirectory("lossless")
        let url = try folder.write(data, to: "image.\(ext)")
        try VipsRuntime.start()
        guard let image = testLoadImage(url.path, access: VIPS_ACCESS_SEQUENTIAL, failOn: VIPS_FAIL_ON_NONE) else {
            throw FixtureError("loading \(ext)")
        }
        defer { tg_unref(image) }
        guard let fields = vips_image_get_fields(image) else { return [] }
        defer { g_strfreev(fields) }
        var names: [String] = []
        var index = 0
        while let field = fields[index] {
            names.append(String(cString: field))
            index += 1
        }
        return names.filter {
            $0.hasPrefix("exif-") || $0.hasPrefix("png-comment") || $0.hasPrefix("jpeg-comment")
                || ["xmp-data", "iptc-data", "icc-profile-data"].contains($0)
        }
    }

    /// Both files decode to the same size, bands and bytes.
    func expectSamePixels(_ a: Data, _ b: Data, as ext: String,
                          sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let (first, second) = (try Self.pixels(a, as: ext), try Self.pixels(b, as: ext))
        #expect(first.width == second.width && first.height == second.height
                && first.bands == second.bands, sourceLocation: sourceLocation)
        // Data compares with memcmp: comparing megapixel arrays element by element is slow in debug.
        #expect(Data(first.pixels) == Data(second.pixels), sourceLocation: sourceLocation)
    }
}

/// JPEG segments made and found by hand, independently of the code under test.
private enum JPEGBytes {
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `data` with `segments` placed right after SOI.
    static func inserting(_ segments: [[UInt8]], into data: Data) -> Data {
        var out = Data(data.prefix(2))
        segments.forEach { out.append(contentsOf: $0) }
        out.append(data.dropFirst(2))
        return out
    }

    /// The markers of the segments before the first SOS, and the offset of that SOS.
    static func headers(_ data: Data) -> (markers: [UInt8], scan: Int?) {
        let bytes = [UInt8](data)
        var markers: [UInt8] = []
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            if bytes[offset + 1] == 0xDA { return (markers, offset) }
            markers.append(bytes[offset + 1])
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return (markers, nil)
    }

    /// The offset of every SOS marker. After the first one only entropy-coded data (where 0xFF
    /// 0xDA cannot occur), tables and scan headers follow; a chance hit in a table would make a
    /// whole-file comparison fail, never pass.
    static func scanStarts(_ data: Data) -> [Int] {
        guard let first = headers(data).scan else { return [] }
        let bytes = [UInt8](data)
        let later = (first + 2..<bytes.count - 1).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
        return [first] + later
    }
}

/// PNG chunks made and found by hand, independently of the code under test.
enum PNGBytes {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// One chunk as its type and whole bytes (length, type, data, CRC).
    struct Chunk {
        var type: String
        var bytes: [UInt8]
    }

    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + payload
        let length = UInt32(payload.count), crc = crc32(body)
        return bigEndian(length) + body + bigEndian(crc)
    }

    /// `data` with `chunks` placed right after IHDR.
    static func inserting(_ chunks: [[UInt8]], into data: Data) -> Data {
        let afterIHDR = 8 + 12 + 13
        var out = Data(data.prefix(afterIHDR))
        chunks.forEach { out.append(contentsOf: $0) }
        out.append(data.dropFirst(afterIHDR))
        return out
    }

    /// The chunks from the signature up to IEND, or up to where they stop making sense.
    static func chunks(_ data: Data) -> [Chunk] {
        let bytes = [UInt8](data)
        var found: [Chunk] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard offset + 12 + length <= bytes.count else { break }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            found.append(Chunk(type: type, bytes: Array(bytes[offset..<offset + 12 + length])))
            offset += 12 + length
            if type == "IEND" { break }
        }
        return found
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) }
    }

    /// CRC-32 as PNG defines it (ISO 3309), bit by bit: the fixtures are tiny.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// libvips reached without the thumbgen shims, so that fixtures can keep their metadata and be
/// progressive: an operation is built by name and its options set from a string, which calls no
/// variadic C function.
private enum VipsFixture {
    /// A libvips image this value owns.
    final class Image {
        let pointer: UnsafeMutablePointer<VipsImage>

        init(_ raw: RawImage) throws {
            try VipsRuntime.start()
            guard let image = raw.pixels.withUnsafeBytes({
                vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(raw.width),
                                                Int32(raw.height), Int32(raw.bands), VIPS_FORMAT_UCHAR)
            }) else { throw FixtureError("vips_image_new_from_memory_copy") }
            pointer = image
        }

        deinit { tg_unref(pointer) }

        /// Attaches a blob metadata field (`exif-data`, `xmp-data`, …).
        func set(_ name: String, _ bytes: [UInt8]) {
            bytes.withUnsafeBytes { vips_image_set_blob_copy(pointer, name, $0.baseAddress, $0.count) }
        }
    }

    /// Runs the `*save_buffer` operation `saver` on `image` with `options` ("Q=90,strip=true").
    static func save(_ image: Image, _ saver: String, _ options: String) throws -> Data {
        try VipsOperationCall.blob(saver, input: image.pointer, options: options, output: "buffer")
    }

    /// One of libvips' built-in ICC profiles ("srgb", "cmyk").
    static func profile(_ name: String) throws -> [UInt8] {
        [UInt8](try VipsOperationCall.blob("profile_load", options: "name=\(name)", output: "profile"))
    }
}
