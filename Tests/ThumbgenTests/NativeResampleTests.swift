import CVips
import Foundation
import Testing
@testable import Thumbgen

/// `VipsImageRef.resampledInMemory` (the C resampler, `CResample`): libvips 8.14's
/// `vips_resize`, and `vips_shrink` then `vips_reduce`, byte for byte, without their pipeline.
@Suite("C resampler: libvips' bytes without libvips' pipeline")
struct NativeResampleTests {
    /// A source size and the sizes to make from it.
    struct Case: CustomStringConvertible {
        var width: Int
        var height: Int
        var targets: [(Int, Int)]
        var description: String { "\(width)×\(height)" }
    }

    /// Reductions under 2 (no whole-number shrink), from 2 to 4, 4 and more (a box shrink
    /// first, `vips_resize`'s own or `BoxPreShrink`'s), one axis kept, one pixel wide, odd
    /// sizes, factors that are not binary fractions (where a running position sum and one
    /// worked out afresh part), and sources large enough for the vector reduce (100,000
    /// pixels and more).
    static let cases: [Case] = {
        let widths = [500, 333, 256, 176, 160, 129, 100, 77, 64, 48, 33, 32, 17, 1]
        func proportional(_ width: Int, _ height: Int) -> [(Int, Int)] {
            widths.filter { $0 < width }.map { ($0, max(1, Int(Double(height) * Double($0) / Double(width) + 0.5))) }
        }
        return [
            Case(width: 350, height: 233, targets: proportional(350, 233) + [(349, 232), (350, 100), (100, 233), (17, 200), (7, 3)]),
            Case(width: 640, height: 427, targets: proportional(640, 427) + [(320, 213), (630, 420)]),
            Case(width: 1001, height: 777, targets: proportional(1001, 777) + [(1000, 776)]),
            Case(width: 97, height: 1203, targets: [(12, 150), (40, 496), (96, 1200), (1, 600)]),
            Case(width: 1203, height: 97, targets: proportional(1203, 97)),
            Case(width: 999, height: 601, targets: proportional(999, 601)),
            Case(width: 517, height: 389, targets: proportional(517, 389)),
            Case(width: 457, height: 323, targets: proportional(457, 323)),
            Case(width: 400, height: 260, targets: [(390, 254), (200, 130)]),
            Case(width: 1200, height: 1800, targets: [(171, 256), (43, 64), (800, 1200), (300, 450)]),
        ]
    }()

    /// Pixels with detail everywhere and edges, from a fixed seed: ramps, a checkerboard and
    /// noise, so that every tap of a mask counts.
    static func source(width: Int, height: Int, bands: Int, seed: UInt64) throws -> VipsImageRef {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var image = RawImage(width: width, height: height) { x, y in
            let checker: UInt8 = ((x / 3 + y / 5) % 2 == 0) ? 230 : 20
            return Colour(r: UInt8((x * 7 + y * 3) % 256), g: checker, b: next())
        }
        if bands == 1 {
            image.bands = 1
            image.pixels = stride(from: 0, to: image.pixels.count, by: 3).map { image.pixels[$0 + 2] }
        }
        return try VipsImageRef(owning: image.vipsImage()).copiedToMemory()
    }

    /// What libvips' own operations make of the area, as `ThumbnailRenderer` builds them.
    static func libvips(_ image: VipsImageRef, x: Int, y: Int, width: Int, height: Int,
                        to targetWidth: Int, _ targetHeight: Int, kernel: Kernel) throws -> VipsImageRef {
        let area = x == 0 && y == 0 && width == image.width && height == image.height
            ? image : try image.extractArea(x: x, y: y, width: width, height: height)
        let choice = ResampleChoice(width: width, height: height, targetWidth: targetWidth,
                                    targetHeight: targetHeight, kernel: kernel, frames: 1)
        // The vector flag is the process's: other tests build resamplers at the same time.
        return try VipsGraphLock.withLock { () throws(ImagingError) -> VipsImageRef in
            try VipsRuntime.withVectorCode(choice.vectorCode) { () throws(ImagingError) in
                guard let box = choice.preShrink else {
                    return try area.resized(hscale: Double(targetWidth) / Double(width),
                                            vscale: Double(targetHeight) / Double(height), kernel: kernel)
                }
                return try area.boxShrunk(hshrink: box.horizontal, vshrink: box.vertical)
                    .reduced(toWidth: targetWidth, height: targetHeight, kernel: kernel)
            }
        }
    }

    /// The differences between the C resampler and libvips for `image`'s area at each target,
    /// as text; `compared` counts the targets the C resampler took.
    static func differences(_ image: VipsImageRef, x: Int = 0, y: Int = 0, width: Int? = nil, height: Int? = nil,
                            targets: [(Int, Int)], kernel: Kernel, compared: inout Int) throws -> [String] {
        let width = width ?? image.width, height = height ?? image.height
        var found: [String] = []
        for (targetWidth, targetHeight) in targets {
            let choice = ResampleChoice(width: width, height: height, targetWidth: targetWidth,
                                        targetHeight: targetHeight, kernel: kernel, frames: 1)
            guard let made = image.resampledInMemory(x: x, y: y, width: width, height: height,
                                                     toWidth: targetWidth, height: targetHeight, kernel: kernel,
                                                     preShrink: choice.preShrink, vectorCode: choice.vectorCode,
                                                     checked: false)
            else {
                found.append("\(width)×\(height) to \(targetWidth)×\(targetHeight) \(kernel): declined")
                continue
            }
            compared += 1
            let expected = try libvips(image, x: x, y: y, width: width, height: height,
                                       to: targetWidth, targetHeight, kernel: kernel)
            let expectedPixels = try expected.rawPixels(), madePixels = try made.rawPixels()
            if made.width != expected.width || made.height != expected.height || madePixels != expectedPixels {
                let differing = zip(expectedPixels, madePixels).filter { $0 != $1 }.count
                found.append("\(width)×\(height)+\(x)+\(y) to \(targetWidth)×\(targetHeight) \(kernel) "
                             + "(box \(String(describing: choice.preShrink)), vector \(choice.vectorCode)): "
                             + "\(made.width)×\(made.height) against \(expected.width)×\(expected.height), "
                             + "\(differing) bytes differ")
            }
        }
        return found
    }

    @Test("RGB and grey at every kind of reduction: libvips' bytes", arguments: cases)
    func matchesLibvips(sizes: Case) throws {
        try VipsRuntime.start()
        var compared = 0, found: [String] = []
        for bands in [3, 1] {
            let image = try Self.source(width: sizes.width, height: sizes.height, bands: bands, seed: UInt64(bands))
            found += try Self.differences(image, targets: sizes.targets, kernel: .lanczos3, compared: &compared)
        }
        #expect(found.isEmpty, "\(found.prefix(8))")
        #expect(compared == sizes.targets.count * 2)
    }

    @Test("Every kernel but nearest: libvips' bytes")
    func everyKernel() throws {
        try VipsRuntime.start()
        let image = try Self.source(width: 640, height: 427, bands: 3, seed: 7)
        var compared = 0, found: [String] = []
        for kernel in Kernel.allCases where kernel != .nearest {
            found += try Self.differences(image, targets: [(320, 213), (100, 67), (37, 25), (600, 400)],
                                          kernel: kernel, compared: &compared)
        }
        #expect(found.isEmpty, "\(found.prefix(8))")
        #expect(compared == 20)
    }

    /// A JPEG streamed from a loader opened for one pass: libvips caches its vertical reduce in
    /// strips of 10 rows (`VipsImageRef.sequentialReduceStrip`), each position worked out at
    /// a strip's top and summed after. 301 and 601 rows to 192 put windows exactly on a
    /// mask boundary, where that sum and a position worked out afresh pick different masks:
    /// the C resampler given the strip makes libvips' streamed bytes, and without it (rows one
    /// at a time, as pixels several rows share are resampled) it does not.
    @Test("A lone JPEG held in memory: the C resampler makes libvips' streamed bytes, strip by strip",
          arguments: [(400, 301), (800, 601)])
    func sequentialStrips(size: (Int, Int)) throws {
        try VipsRuntime.start()
        let folder = try TemporaryDirectory("resample-strips")
        let source = try Self.source(width: size.0, height: size.1, bands: 3, seed: 21)
        let jpeg = try VipsOperationCall.blob("jpegsave_buffer", input: source.pointer, output: "buffer")
        let file = try folder.write(jpeg, to: "strips.jpg")
        let (width, height) = (256, 192)
        let choice = ResampleChoice(width: size.0, height: size.1, targetWidth: width, targetHeight: height,
                                    kernel: .lanczos3, frames: 1)
        let streamed = try VipsImageRef.loadJPEG(path: file.path, shrinkFactor: 1, access: .sequential,
                                                 strictness: .error)
        #expect(streamed.isSequential)
        let expected = try Self.libvips(streamed, x: 0, y: 0, width: size.0, height: size.1, to: width, height,
                                        kernel: .lanczos3).rawPixels()
        let held = try VipsImageRef.loadJPEG(path: file.path, shrinkFactor: 1, access: .sequential,
                                             strictness: .error).copiedToMemory()
        func made(strip: Int) throws -> Data {
            try #require(held.resampledInMemory(x: 0, y: 0, width: size.0, height: size.1, toWidth: width,
                                                height: height, kernel: .lanczos3, preShrink: choice.preShrink,
                                                vectorCode: choice.vectorCode, strip: strip, checked: false)).rawPixels()
        }
        #expect(try made(strip: VipsImageRef.sequentialReduceStrip) == expected)
        #expect(try made(strip: 0) != expected)
    }

    @Test("An area inside the image (a crop) reads only that area, edges repeated as libvips does")
    func area() throws {
        try VipsRuntime.start()
        let image = try Self.source(width: 800, height: 600, bands: 3, seed: 11)
        var compared = 0
        let found = try Self.differences(image, x: 101, y: 37, width: 517, height: 389,
                                         targets: [(256, 193), (64, 48), (500, 376), (129, 97)],
                                         kernel: .lanczos3, compared: &compared)
        #expect(found.isEmpty, "\(found)")
        #expect(compared == 4)
    }

    @Test("Alpha, 16-bit, pixels not in memory, the nearest kernel and growing are left to libvips")
    func declines() throws {
        try VipsRuntime.start()
        let rgb = try Self.source(width: 200, height: 100, bands: 3, seed: 3)
        func made(_ image: VipsImageRef, _ width: Int, _ height: Int, kernel: Kernel = .lanczos3) -> Bool {
            image.resampledInMemory(x: 0, y: 0, width: image.width, height: image.height, toWidth: width,
                                    height: height, kernel: kernel, preShrink: nil, vectorCode: false, checked: false) != nil
        }
        #expect(made(rgb, 50, 25), "the plain case is taken")
        let alpha = try rgb.withOpaqueAlpha().copiedToMemory()
        #expect(alpha.hasAlpha)
        #expect(!made(alpha, 50, 25), "alpha")
        #expect(!made(try rgb.cast(.uint16).copiedToMemory(), 50, 25), "16-bit")
        #expect(!made(try rgb.extractArea(x: 1, y: 1, width: 150, height: 90), 50, 25), "lazy pixels")
        #expect(!made(rgb, 50, 25, kernel: .nearest), "nearest")
        #expect(!made(rgb, 400, 50), "wider")
        #expect(!made(rgb, 200, 100), "the same size")
    }

    @Test("Corpus photos at thumbnail sizes: libvips' bytes", .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func corpus() throws {
        try VipsRuntime.start()
        let corpora = try #require(TestPaths.corpora)
        let files = TemporaryDirectory.files(under: corpora).filter {
            ["jpg", "jpeg", "png", "webp"].contains(($0 as NSString).pathExtension.lowercased())
        }.sorted().map { corpora.appendingPathComponent($0) }
        var compared = 0, sources = 0, found: [String] = []
        for file in files where sources < 60 {
            let loader: String
            switch file.pathExtension.lowercased() {
            case "png": loader = "pngload"
            case "webp": loader = "webpload"
            default: loader = "jpegload"
            }
            guard let opened = try? VipsImageRef.load(loader, path: file.path, access: .random, strictness: .error),
                  opened.bandFormat == .uint8, !opened.hasAlpha, opened.bands == 3 || opened.bands == 1,
                  min(opened.width, opened.height) >= 16, opened.width * opened.height <= 4_000_000,
                  let image = try? opened.copiedToMemory() else { continue }
            let targets = [256, 64, 33].map { size -> (Int, Int) in
                let scale = Double(size) / Double(max(image.width, image.height))
                return (max(1, Int((Double(image.width) * scale).rounded())),
                        max(1, Int((Double(image.height) * scale).rounded())))
            }.filter { $0.0 <= image.width && $0.1 <= image.height && ($0.0 < image.width || $0.1 < image.height) }
            guard !targets.isEmpty else { continue }
            sources += 1
            found += try Self.differences(image, targets: targets, kernel: .lanczos3, compared: &compared)
                .map { "\(file.lastPathComponent): \($0)" }
        }
        #expect(found.isEmpty, "\(found.prefix(8))")
        #expect(sources >= 30, "only \(sources) corpus images were 8-bit without alpha")
    }
}
