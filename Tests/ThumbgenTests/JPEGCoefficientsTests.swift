import CVips
import Foundation
import Testing
@testable import Thumbgen

/// `JPEGCoefficients`: a JPEG's coefficients read once, each DCT scale made from them with the
/// pixels libjpeg's own scaled decode (through libvips' loader) gives, byte for byte.
@Suite("JPEG coefficients: one entropy decode, every DCT scale libjpeg's own")
struct JPEGCoefficientsTests {
    /// A JPEG fixture: its size, bands and libvips' jpegsave options.
    struct Fixture: CustomStringConvertible {
        var name: String
        var width: Int
        var height: Int
        var bands = 3
        var options: String
        var description: String { name }
    }

    static let fixtures: [Fixture] = [
        Fixture(name: "4:2:0", width: 1001, height: 777, options: "Q=75"),
        Fixture(name: "4:4:4", width: 999, height: 601, options: "Q=80,subsample_mode=off"),
        Fixture(name: "progressive 4:2:0", width: 640, height: 482, options: "Q=85,interlace=true"),
        Fixture(name: "progressive 4:4:4", width: 333, height: 250, options: "Q=70,interlace=true,subsample_mode=off"),
        Fixture(name: "restart markers", width: 517, height: 389, options: "Q=75,restart_interval=2"),
        Fixture(name: "grey", width: 513, height: 259, bands: 1, options: "Q=75"),
        Fixture(name: "tiny 4:2:0", width: 13, height: 9, options: "Q=75"),
    ]

    /// Pixels with detail everywhere (flat colour comes out alike whatever the decode).
    static func pixels(_ fixture: Fixture) -> RawImage {
        var image = RawImage(width: fixture.width, height: fixture.height) { x, y in
            Colour(r: UInt8((x * 7 + y * 3) % 256), g: UInt8((x ^ y) & 0xff), b: UInt8((x * y / 5) % 256))
        }
        if fixture.bands == 1 {
            image.bands = 1
            image.pixels = stride(from: 0, to: image.pixels.count, by: 3).map { image.pixels[$0 + 1] }
        }
        return image
    }

    /// Whether every DCT scale of the JPEG at `file` made from its coefficients (given the
    /// full-size header, as the decoder gives it) is libvips' scaled load of the file: size,
    /// bands, bytes and every metadata field; nil when the file has no coefficients. The
    /// differences, as text.
    static func differences(_ file: URL) throws -> [String]? {
        guard let coefficients = JPEGCoefficients.read(path: file.path) else { return nil }
        let header = try VipsImageRef.loadJPEG(path: file.path, shrinkFactor: 1, access: .sequential, strictness: .error)
        var found: [String] = []
        for factor in JPEGCoefficients.factors.sorted() {
            let loaded = try VipsImageRef.loadJPEG(path: file.path, shrinkFactor: factor, access: .sequential,
                                                   strictness: .error)
            let made = try coefficients.image(factor: factor, like: header)
            let expected = try loaded.rawPixels(), actual = try made.rawPixels()
            let same = expected == actual
            if !same || made.width != loaded.width || made.height != loaded.height || made.bands != loaded.bands {
                found.append("\(file.lastPathComponent) at 1/\(factor): \(made.width)×\(made.height)×\(made.bands) "
                             + "against \(loaded.width)×\(loaded.height)×\(loaded.bands), pixels \(same ? "equal" : "differ")")
            }
            let (madeFields, loadedFields) = (metadata(made), metadata(loaded))
            if madeFields != loadedFields {
                let names = Set(madeFields.keys).union(loadedFields.keys).filter { madeFields[$0] != loadedFields[$0] }
                found.append("\(file.lastPathComponent) at 1/\(factor): metadata differs in \(names.sorted())")
            }
        }
        return found
    }

    /// Every metadata field of `image` but its size and the loader's file name, as libvips
    /// prints them.
    static func metadata(_ image: VipsImageRef) -> [String: String] {
        guard let fields = vips_image_get_fields(image.pointer) else { return [:] }
        defer { g_strfreev(fields) }
        var values: [String: String] = [:]
        var index = 0
        while let field = fields[index] {
            index += 1
            let name = String(cString: field)
            if ["width", "height", "filename"].contains(name) { continue }
            var text: UnsafeMutablePointer<CChar>?
            if vips_image_get_as_string(image.pointer, name, &text) == 0, let text {
                values[name] = String(cString: text)
                g_free(text)
            } else {
                values[name] = "(unreadable)"
                vips_error_clear()
            }
        }
        return values
    }

    @Test("Every DCT scale from the coefficients is libvips' scaled load, byte for byte", arguments: fixtures)
    func scalesMatchLibvips(fixture: Fixture) throws {
        try VipsRuntime.start()
        let folder = try TemporaryDirectory("jpeg-coefficients")
        let image = try Self.pixels(fixture).vipsImage()
        defer { tg_unref(image) }
        let jpeg = try VipsOperationCall.blob("jpegsave_buffer", input: image, options: fixture.options, output: "buffer")
        let file = try folder.write(jpeg, to: "fixture.jpg")
        let differences = try #require(try Self.differences(file), "\(fixture.name) has no coefficients")
        #expect(differences.isEmpty, "\(differences)")
        let coefficients = try #require(JPEGCoefficients.read(path: file.path))
        #expect(coefficients.width == fixture.width && coefficients.height == fixture.height)
        #expect(coefficients.bands == fixture.bands)
    }

    @Test("Every corpus JPEG with coefficients: each DCT scale is libvips' scaled load, byte for byte",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func corpusMatchesLibvips() throws {
        try VipsRuntime.start()
        let corpora = try #require(TestPaths.corpora)
        let files = TemporaryDirectory.files(under: corpora).filter {
            ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased())
        }.map { corpora.appendingPathComponent($0) }
        var compared = 0, declined = 0, differences: [String] = []
        for file in files {
            // libvips asserts on a shrink that leaves no pixel (3×62728 at 1/8): too small to
            // thumbnail at these scales anyway.
            guard let header = try? VipsImageRef.load("jpegload", path: file.path, access: .sequential, strictness: .none),
                  min(header.width, header.height) >= 16, header.bandFormat == .uint8 else { continue }
            if let found = try Self.differences(file) {
                compared += 1
                differences += found
            } else {
                declined += 1
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(10))")
        // 87 of the corpora's JPEGs have coefficients this reproduces (4:2:0, 4:4:4, 4:2:2, grey;
        // progressive too); CMYK, unusual sampling and damaged files decline.
        #expect(compared >= 80, "only \(compared) corpus JPEGs compared (\(declined) declined)")
    }

    @Test("A JPEG's decode estimate counts its coefficients and every scale made from them only when two scales share them")
    func estimate() {
        let header = ImageHeader(loader: "jpegload", orientedWidth: 4000, orientedHeight: 3000, orientation: 1,
                                 frames: 1, isSRGBOrGrey: true, isEightBit: true, hasAlpha: false, hasICCProfile: false)
        let one = DecodeEstimate.of(header, groups: [(scale: 0.5, allFrames: false)])
        #expect(one.bytes == 2000 * 1500 * 3, "one scale: libjpeg's own scaled decode, streamed")
        let two = DecodeEstimate.of(header, groups: [(scale: 0.5, allFrames: false), (scale: 0.25, allFrames: false)])
        #expect(two.bytes == (2000 * 1500 + 1000 * 750) * 3 + 4000 * 3000 * 3 * 2,
                "two scales: both images and the coefficients at two bytes a band a pixel")
        let withFull = DecodeEstimate.of(header, groups: [(scale: 1, allFrames: false), (scale: 0.5, allFrames: false)])
        #expect(withFull.bytes == 4000 * 3000 * 3, "full size and one scale share no coefficients")
    }

    @Test("Damaged, truncated and non-JPEG files have no coefficients: libvips decodes them")
    func declined() throws {
        try VipsRuntime.start()
        let folder = try TemporaryDirectory("jpeg-coefficients")
        let fixture = Self.fixtures[0]
        let image = try Self.pixels(fixture).vipsImage()
        defer { tg_unref(image) }
        let jpeg = try VipsOperationCall.blob("jpegsave_buffer", input: image, options: fixture.options, output: "buffer")
        var damaged = jpeg
        // Garbage in the middle of the entropy-coded data: libjpeg warns and papers over it.
        for offset in stride(from: damaged.count / 2, to: damaged.count / 2 + 64, by: 1) { damaged[offset] = 0xff }
        let cases: [(String, Data)] = [
            ("truncated.jpg", jpeg.prefix(jpeg.count / 2)),
            ("damaged.jpg", damaged),
            ("photo.png", try Self.pixels(fixture).encoded(as: .png)),
            ("empty.jpg", Data()),
        ]
        for (name, data) in cases {
            let file = try folder.write(data, to: name)
            #expect(JPEGCoefficients.read(path: file.path) == nil, "\(name) has coefficients")
        }
        #expect(JPEGCoefficients.read(path: try folder.write(jpeg, to: "whole.jpg").path) != nil)
    }
}
