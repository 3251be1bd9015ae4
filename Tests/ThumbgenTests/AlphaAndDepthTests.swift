import Foundation
import Testing

/// Alpha and picture through every colour path: 8- and 16-bit, float, grey and RGB, with and
/// without an ICC profile, checked by pixel against what `vips thumbnail` gives for the same
/// files (which agrees with browsers on all of these).
@Suite("End to end: alpha and bit depth")
struct AlphaAndDepthTests {
    /// The 8-bit colour every RGB fixture holds, and the grey value of every grey one.
    static let red: [UInt8] = [200, 40, 40], grey: UInt8 = 100

    /// One source of the matrix and what its outputs must hold.
    struct Source: CustomStringConvertible {
        /// How the fixture stores its values.
        var depth: FlatFixture.Depth
        /// Grey (one band) rather than RGB.
        var isGrey: Bool
        /// Whether the fixture embeds an ICC profile.
        var hasProfile: Bool
        /// Whether the fixture has a half-transparent alpha band.
        var alpha: Bool

        /// The fixture's file name stem, e.g. `grey16a-icc`.
        var description: String {
            "\(isGrey ? "grey" : "rgb")\(depth)\(alpha ? "a" : "")-\(hasProfile ? "icc" : "none")"
        }

        /// The 8-bit values the output must hold (colour, then 128 for alpha).
        var expected: [UInt8] { (isGrey ? [grey] : red) + (alpha ? [128] : []) }

        /// The fixture: half-transparent where `alpha`, embedding libvips' sRGB profile (RGB)
        /// or a hand-made gamma 2.2 grey profile (grey, close enough to sRGB's curve).
        func fixture() throws -> FlatFixture {
            let colour = (isGrey ? [grey] : red).map { FlatFixture.value($0, at: depth) }
            // Alpha is not a colour: half of the depth's range, never linearised.
            let half = depth == .sixteen ? 32768.0 : 128
            let profile = hasProfile ? (isGrey ? ICCProfiles.grey() : try ICCProfiles.srgb()) : nil
            return FlatFixture(values: colour + (alpha ? [half] : []), depth: depth, profile: profile)
        }
    }

    /// Runs every `(source, output)` pair in one manifest at 32×32 (from 64×64, so that every
    /// row is resampled) and returns the workspace.
    private func render(_ sources: [Source], saver: String = "pngsave_buffer", ext: String = "png",
                        outputs: [String]) async throws -> Workspace {
        let space = try Workspace()
        var rows: [[String]] = []
        for source in sources {
            let name = "\(source).\(ext)"
            try space.folder.write(try source.fixture().encoded(with: saver), to: name)
            rows += outputs.map { [name, "\(source).\($0)"] }
        }
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "32x32"])
        #expect(run.status == 0, "\(run.result.stderr)")
        return space
    }

    /// Checks the centre pixel of `output`: `bands` bands holding `expected` within
    /// `tolerance` (alpha, the last of four or of two, exactly ±1).
    private func check(_ space: Workspace, _ output: String, bands: Int, expected: [UInt8],
                       tolerance: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let image = try space.pixels(output)
        let pixel = image.pixel(image.width / 2, image.height / 2)
        #expect(image.bands == bands, "\(output): \(image.bands) bands, \(pixel)",
                sourceLocation: sourceLocation)
        guard image.bands == bands else { return }
        // A grey source written as colour (WebP) repeats its value in every colour band.
        let want = bands > expected.count
            ? Array(repeating: expected[0], count: 3) + expected.dropFirst() : expected
        let hasAlpha = bands == 2 || bands == 4
        for (index, (got, wanted)) in zip(pixel, want).enumerated() {
            let allowed = hasAlpha && index == bands - 1 ? 1 : tolerance
            #expect(abs(Int(got) - Int(wanted)) <= allowed,
                    "\(output): band \(index) is \(got), expected \(wanted) (pixel \(pixel), want \(want))",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("Half-transparent grey and RGB keep alpha 128 and their colour, with and without a profile",
          arguments: [FlatFixture.Depth.eight, .sixteen])
    func halfTransparent(depth: FlatFixture.Depth) async throws {
        let sources = [false, true].flatMap { grey in
            [false, true].map { Source(depth: depth, isGrey: grey, hasProfile: $0, alpha: true) }
        }
        let space = try await render(sources, outputs: ["png", "webp"])
        for source in sources {
            // PNG keeps grey as one band plus alpha; WebP stores colour.
            try check(space, "\(source).png", bands: source.isGrey ? 2 : 4, expected: source.expected,
                      tolerance: 3)
            try check(space, "\(source).webp", bands: 4, expected: source.expected, tolerance: 4)
        }
    }

    @Test("Opaque 16-bit PNGs keep their colour, with and without a profile")
    func opaqueSixteenBit() async throws {
        let sources = [false, true].flatMap { grey in
            [false, true].map { Source(depth: .sixteen, isGrey: grey, hasProfile: $0, alpha: false) }
        }
        let space = try await render(sources, outputs: ["png"])
        for source in sources {
            try check(space, "\(source).png", bands: source.isGrey ? 1 : 3, expected: source.expected,
                      tolerance: 3)
        }
    }

    @Test("A float (scRGB) TIFF keeps its picture with or without a profile, as vips thumbnail shows it")
    func floatTIFF() async throws {
        // The reported file: 50×50, three float bands, a small embedded RGB profile. libvips'
        // profile transform reads device values only as 8- or 16-bit integers, and took the
        // linear 0–1 values for black; scRGB is defined without a profile, so it is converted
        // as scRGB, as `vips thumbnail` does.
        let space = try Workspace()
        let colour = Self.red.map { FlatFixture.value($0, at: .float) }
        let fixtures: [(String, Data?)] = [
            ("float-none", nil), ("float-small-icc", ICCProfiles.rgb()), ("float-srgb", try ICCProfiles.srgb()),
        ]
        for (name, profile) in fixtures {
            let fixture = FlatFixture(width: 50, height: 50, values: colour, depth: .float, profile: profile)
            try space.folder.write(try fixture.encoded(with: "tiffsave_buffer"), to: "\(name).tif")
        }
        let rows = fixtures.flatMap { [["\($0.0).tif", "\($0.0).png"], ["\($0.0).tif", "\($0.0).webp"]] }
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "25x25"])
        #expect(run.status == 0, "\(run.result.stderr)")
        for (name, _) in fixtures {
            try check(space, "\(name).png", bands: 3, expected: Self.red, tolerance: 3)
            try check(space, "\(name).webp", bands: 3, expected: Self.red, tolerance: 4)
        }
    }

    @Test("Pillow's 16-bit RGBA TIFF with a profile keeps its transparency (as Pillow's own target PNG)",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func pillowSixteenBitRGBA() async throws {
        let images = try #require(TestPaths.corpora).appendingPathComponent("pillow/Tests/images")
        let source = images.appendingPathComponent("tiff_16bit_RGBa.tiff")
        let target = try PixelImage.load(images.appendingPathComponent("tiff_16bit_RGBa_target.png"))
        let space = try Workspace()
        // 100×40 in a 100×40 box: no resampling, so every pixel compares with the target.
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], [[source.path, "a.png"]]),
                                      ["--size", "100x40"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let image = try space.pixels("a.png")
        #expect(image.bands == 4 && image.width == target.width && image.height == target.height)
        guard image.bands == 4, target.bands == 4, image.pixels.count == target.pixels.count else { return }
        var alphaDifference = 0, opaque = 0
        for index in stride(from: 3, to: image.pixels.count, by: 4) {
            alphaDifference += abs(Int(image.pixels[index]) - Int(target.pixels[index]))
            if image.pixels[index] == 255 { opaque += 1 }
        }
        let mean = Double(alphaDifference) / Double(image.width * image.height)
        #expect(mean < 1, "alpha differs from the target by \(mean) on average; \(opaque) pixels opaque")
        let colour = try #require(image.meanAbsoluteDifference(from: target))
        #expect(colour < 3, "colour differs from the target by \(colour) on average")
    }
}
