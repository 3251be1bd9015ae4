import CVips
import CWebPScale
import Foundation
import Testing
@testable import Thumbgen

/// `WebPPlanes`: a lossy WebP decoded once into its planes, each size an area average of them.
@Suite("WebP planes: one decode, every size an area average")
struct WebPPlanesTests {
    /// The values output pixel (x, y) may take: the mean of the source area it covers, worked
    /// out in floating point from the definition (each source pixel weighted by the part of it
    /// inside), rounded; both neighbours where the mean is a hair from .5, which floating point
    /// cannot tell apart from the exact integers.
    static func expectedAverage(_ plane: [UInt8], width: Int, height: Int, x: Int, y: Int,
                                outWidth: Int, outHeight: Int) -> Set<Int> {
        func overlaps(_ k: Int, _ source: Int, _ out: Int) -> [(Int, Double)] {
            let start = Double(k) * Double(source) / Double(out), end = Double(k + 1) * Double(source) / Double(out)
            return (Int(start.rounded(.down))..<Int(end.rounded(.up))).map { i in
                (i, min(Double(i + 1), end) - max(Double(i), start))
            }
        }
        var total = 0.0, area = 0.0
        for (j, rowWeight) in overlaps(y, height, outHeight) {
            for (i, columnWeight) in overlaps(x, width, outWidth) {
                total += Double(plane[j * width + i]) * rowWeight * columnWeight
                area += rowWeight * columnWeight
            }
        }
        let mean = total / area
        if abs(mean - mean.rounded(.down) - 0.5) < 1e-6 {
            return [Int(mean.rounded(.down)), Int(mean.rounded(.up))]
        }
        return [Int(mean.rounded())]
    }

    @Test("Each output pixel is the mean of the area it covers, up or down, at odd sizes too",
          arguments: [(7, 5, 3, 2), (64, 48, 16, 12), (100, 61, 33, 20), (5, 3, 9, 7), (40, 30, 40, 30), (1, 1, 3, 2)])
    func areaAverage(sizes: (Int, Int, Int, Int)) {
        let (width, height, outWidth, outHeight) = sizes
        var generator = SystemRandomNumberGenerator()
        let plane = (0..<(width * height)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        let status = plane.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                tg_area_average(source.baseAddress, Int32(width), Int32(height), width,
                                target.baseAddress, Int32(outWidth), Int32(outHeight), outWidth)
            }
        }
        #expect(status == 0)
        var wrong: [String] = []
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                let expected = Self.expectedAverage(plane, width: width, height: height, x: x, y: y,
                                                    outWidth: outWidth, outHeight: outHeight)
                if !expected.contains(Int(out[y * outWidth + x])) {
                    wrong.append("(\(x), \(y)): \(out[y * outWidth + x]) against \(expected)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(width)×\(height) to \(outWidth)×\(outHeight): \(wrong.prefix(5))")
    }

    @Test("A uniform plane stays uniform at any size, and sizes out of range write nothing")
    func uniformAndRange() {
        let plane = [UInt8](repeating: 77, count: 37 * 23)
        var out = [UInt8](repeating: 0, count: 11 * 7)
        let made = plane.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer {
                tg_area_average(source.baseAddress, 37, 23, 37, $0.baseAddress, 11, 7, 11)
            }
        }
        #expect(made == 0 && out.allSatisfy { $0 == 77 })
        var untouched = [UInt8](repeating: 5, count: 4)
        let refused = plane.withUnsafeBufferPointer { source in
            untouched.withUnsafeMutableBufferPointer {
                tg_area_average(source.baseAddress, 37, 23, 37, $0.baseAddress, 0, 4, 1)
            }
        }
        #expect(refused == -1 && untouched == [5, 5, 5, 5])
    }

    /// A lossy WebP of `width`×`height` with detail everywhere, with alpha when asked.
    static func lossyWebP(width: Int, height: Int, alpha: Bool) throws -> Data {
        var image = RawImage(width: width, height: height) { x, y in
            Colour(r: UInt8((x * 3 + y) % 256), g: UInt8((x ^ y) & 0xff), b: UInt8(y * 255 / max(1, height - 1)))
        }
        if alpha {
            image.bands = 4
            var rgba: [UInt8] = []
            rgba.reserveCapacity(width * height * 4)
            for pixel in 0..<(width * height) {
                rgba += image.pixels[(pixel * 3)..<(pixel * 3 + 3)] + [UInt8(pixel / width * 255 / max(1, height - 1))]
            }
            image.pixels = rgba
        }
        return try image.encoded(as: .webp, quality: 90)
    }

    @Test("A lossy WebP (with alpha and without) comes out close to lanczos3 from its full decode, and each size is the same whatever was made before",
          arguments: [false, true])
    func sizesFromPlanes(alpha: Bool) throws {
        let folder = try TemporaryDirectory("webp-planes")
        let file = try folder.write(try Self.lossyWebP(width: 1203, height: 901, alpha: alpha), to: "photo.webp")
        try VipsRuntime.start()
        let header = try VipsImageRef.load("webpload", path: file.path, access: .sequential, strictness: .error)
        let planes = try #require(WebPPlanes.decode(path: file.path))
        #expect(planes.width == 1203 && planes.height == 901 && planes.hasAlpha == alpha)
        #expect(planes.bytes >= 1203 * 901 * (alpha ? 2 : 1))
        for scale in [0.5, 0.26, 0.1] {
            let image = try planes.image(at: scale, like: header)
            let (width, height) = planes.size(at: scale)
            #expect(image.width == width && image.height == height && image.bands == (alpha ? 4 : 3))
            #expect(image.loader == "webpload", "the header's metadata comes along")
            let made = try folder.write(try image.encodedPNG(), to: "made-\(scale).png")
            let reference = try PixelImage.load(file, resizedTo: (width, height))
            let difference = try #require(try PixelImage.load(made).meanAbsoluteDifference(from: reference))
            #expect(difference < 4, "scale \(scale): mean difference \(difference) from lanczos3")
        }
        // Made again from fresh planes, in another order: the same pixels.
        let again = try #require(WebPPlanes.decode(path: file.path))
        for scale in [0.1, 0.5] {
            let first = try planes.image(at: scale, like: header).encodedPNG()
            let second = try again.image(at: scale, like: header).encodedPNG()
            #expect(first == second, "scale \(scale) depends on what was made before")
        }
    }

    @Test("One row, cold, with the defaults: a lossy WebP's EXIF orientation and ICC profile survive the planes, as through libvips' loader")
    func metadataThroughPlanes() async throws {
        try VipsRuntime.start()
        // Mid-tones everywhere (a gamma-1.0 profile moves them far from sRGB), and no symmetry,
        // so that a lost orientation or profile shows.
        let pixels = RawImage(width: 400, height: 300) { x, y in
            Colour(r: UInt8(x * 255 / 399), g: 128, b: UInt8(y * 255 / 299))
        }
        let image = try pixels.vipsImage()
        defer { tg_unref(image) }
        let exif = Array("Exif".utf8) + [0, 0] + FixtureBytes.exif(orientation: 6)
        let profile = ICCProfiles.rgb(gamma: 1.0)
        exif.withUnsafeBytes { _ = vips_image_set_blob_copy(image, "exif-data", $0.baseAddress, $0.count) }
        profile.withUnsafeBytes { _ = vips_image_set_blob_copy(image, "icc-profile-data", $0.baseAddress, $0.count) }
        tg_set_int(image, "orientation", 6)
        let webp = try VipsOperationCall.blob("webpsave_buffer", input: image, options: "Q=95", output: "buffer")
        let space = try Workspace()
        // One row a source: the first at a quarter (the planes), the second at full size (libvips).
        let planes = try space.folder.write(webp, to: "small.webp")
        _ = try space.folder.write(webp, to: "large.webp")
        let header = try VipsImageRef.load("webpload", path: planes.path, access: .sequential, strictness: .error)
        #expect(header.orientation == 6 && header.hasICCProfile, "the fixture lacks its metadata")
        let run = try await space.run(manifest: CSV.manifest(["src", "size", "out"],
                                                             [["small.webp", "100x100", "small.png"],
                                                              ["large.webp", "300x400", "large.png"]]))
        #expect(run.status == 0, "\(run.result.stderr)")
        let small = try space.pixels("small.png")
        #expect(small.width == 75 && small.height == 100, "\(small.width)×\(small.height): not turned upright")
        let reference = try PixelImage.load(space.output("large.png"), resizedTo: (small.width, small.height))
        let difference = try #require(small.meanAbsoluteDifference(from: reference))
        #expect(difference < 3, "mean difference \(difference) from the libvips loader's output")
    }

    @Test("Lossless, animated, damaged and non-WebP files have no planes: libvips decodes them")
    func noPlanes() throws {
        let folder = try TemporaryDirectory("webp-planes")
        try VipsRuntime.start()
        let pixels = RawImage(width: 64, height: 48) { x, y in Colour(r: UInt8(x * 4), g: UInt8(y * 5), b: 9) }
        let image = try pixels.vipsImage()
        defer { tg_unref(image) }
        let lossless = try VipsOperationCall.blob("webpsave_buffer", input: image, options: "lossless=true",
                                                  output: "buffer")
        let strip = RawImage(width: 32, height: 24 * 3) { x, y in Colour(r: UInt8(x * 8), g: UInt8(y * 3), b: 0) }
        let animated = try strip.encodedAnimation(pageHeight: 24, as: .webp)
        let lossy = try Self.lossyWebP(width: 300, height: 200, alpha: false)
        let cases: [(String, Data)] = [
            ("lossless.webp", lossless), ("animated.webp", animated),
            ("truncated.webp", lossy.prefix(lossy.count / 2)), ("photo.png", try pixels.encoded(as: .png)),
        ]
        for (name, data) in cases {
            let file = try folder.write(data, to: name)
            #expect(WebPPlanes.decode(path: file.path) == nil, "\(name) has planes")
        }
        #expect(WebPPlanes.decode(path: try folder.write(lossy, to: "whole.webp").path) != nil)
    }
}

extension VipsImageRef {
    /// The image as a PNG, losslessly.
    fileprivate func encodedPNG() throws -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard tg_pngsave_buffer(pointer, &buffer, &length, 1, Int32(VIPS_FOREIGN_PNG_FILTER_NONE.rawValue), 0, 100) == 0, let buffer else {
            throw FixtureError("pngsave")
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
