import Foundation
import Testing

/// Colour handling on real files: profiles are honoured where they are usable, and a broken
/// profile does not cost the image.
@Suite("End to end: colour")
struct ColourTests {
    @Test("A JPEG whose embedded ICC profile is broken is still written (grey, as it came)",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func brokenProfile() async throws {
        let corpora = try #require(TestPaths.corpora)
        let space = try Workspace()
        // Pillow's fixture: the ICC segment comes after SOF and is cut short (libvips: "Read
        // from memory error. Got 7 bytes, block should be of 128 bytes").
        let source = corpora.appendingPathComponent("pillow/Tests/images/icc-after-SOF.jpg").path
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], [[source, "a.png"]]),
                                      ["--size", "64x64"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.row(2)?.status == "written")
        let image = try space.pixels("a.png")
        #expect(image.bands == 1 && max(image.width, image.height) <= 64)
    }
}

/// Colour spaces and bit depths from the corpora: every output is 8-bit sRGB, or 8-bit grey
/// where the format keeps grey, with colours matching a reference of the same picture.
@Suite("End to end: colour spaces and depths")
struct ColourSpaceTests {
    static func corpus(_ relative: String) throws -> String {
        try #require(TestPaths.corpora).appendingPathComponent(relative).path
    }

    @Test("CMYK JPEG and TIFF, with and without a profile, come out as sRGB matching the RGB original",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func cmyk() async throws {
        let space = try Workspace()
        let cmykJPEG = try Self.corpus("pillow/Tests/images/pil_sample_cmyk.jpg")
        let withProfile = FixtureBytes.jpeg(try Data(contentsOf: URL(fileURLWithPath: cmykJPEG)),
                                            withICCProfile: try FixtureBytes.cmykProfile())
        _ = try space.folder.write(withProfile, to: "cmyk-profile.jpg")
        let rows = [
            [cmykJPEG, "cmyk.png"], ["cmyk-profile.jpg", "cmyk-profile.png"],
            [try Self.corpus("pillow/Tests/images/pil_sample_rgb.jpg"), "rgb.png"],
            [try Self.corpus("pillow/Tests/images/tiff_strip_cmyk_jpeg.tif"), "tiff.png"],
            [try Self.corpus("pillow/Tests/images/tiff_strip_cmyk_16l_jpeg.tif"), "tiff16.png"],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "100x100"])
        #expect(run.status == 0, "\(run.result.stderr)")
        for name in ["cmyk.png", "cmyk-profile.png", "tiff.png", "tiff16.png"] {
            let facts = try ImageFacts.read(space.output(name))
            #expect(facts.bands == 3 && facts.interpretation == "srgb" && facts.isEightBit, "\(name): \(facts)")
        }
        // The same picture ("RED" on black) through libvips' CMYK profile, embedded or as the
        // fallback, from JPEG and from 8- and 16-bit TIFF: the same pixels, within rounding.
        let reference = try space.pixels("cmyk.png")
        for name in ["cmyk-profile.png", "tiff.png", "tiff16.png"] {
            let difference = try #require(try space.pixels(name).meanAbsoluteDifference(from: reference))
            #expect(difference < 3, "\(name) differs from cmyk.png by \(difference)")
        }
        // Against the RGB original: the red letters stay red, within the profile's rendering
        // (measured: (230,49,54) for (229,33,21)); CMYK's rich black is a dark grey (31,33,43).
        let rgb = try space.pixels("rgb.png")
        for (x, y) in [(16, 45), (30, 45), (40, 45)] {
            let a = reference.pixel(x, y), b = rgb.pixel(x, y)
            #expect(a[0] > 200 && abs(Int(a[0]) - Int(b[0])) < 20 && a[1] < 80 && a[2] < 80,
                    "(\(x),\(y)): \(a) for \(b)")
        }
        #expect(reference.pixel(50, 90).allSatisfy { $0 < 60 }, "\(reference.pixel(50, 90))")
    }

    @Test("16-bit, float and palette sources come out 8-bit; grey stays grey in PNG, JPEG, TIFF and JPEG XL",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func depthsAndGrey() async throws {
        let space = try Workspace()
        let testpngs = "libpng/contrib/testpngs/"
        var rows: [[String]] = try [
            [testpngs + "rgb-16.png", "rgb16.png"], [testpngs + "rgb-8.png", "rgb8.png"],
            [testpngs + "rgb-alpha-16.png", "rgba16.png"], [testpngs + "gray-16.png", "grey16.png"],
            [testpngs + "gray-8.png", "grey8.png"], [testpngs + "gray-alpha-16.png", "greyalpha16.png"],
            [testpngs + "palette-8.png", "palette.png"], [testpngs + "gray-8.png", "grey.jpg"],
            [testpngs + "gray-8.png", "grey.webp"], [testpngs + "gray-8.png", "grey.tif"],
            [testpngs + "gray-8.png", "grey.jxl"], ["image-rs/tests/images/tiff/testsuite/rgb32f_color.tiff", "float.png"],
        ].map { [try Self.corpus($0[0]), $0[1], "", ""] }
        // Grey padded with a colour has to become colour.
        rows.append([try Self.corpus(testpngs + "gray-8.png"), "red-pad.png", "contain", "#ff0000"])
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "fit", "background"], rows),
                                      ["--size", "64x32"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let expected: [(String, Int, String)] = [
            ("rgb16.png", 3, "srgb"), ("rgba16.png", 4, "srgb"), ("grey16.png", 1, "b-w"),
            ("grey8.png", 1, "b-w"), ("greyalpha16.png", 2, "b-w"), ("palette.png", 3, "srgb"),
            ("grey.jpg", 1, "b-w"), ("grey.webp", 3, "srgb"), ("grey.tif", 1, "b-w"),
            ("grey.jxl", 1, "b-w"), ("float.png", 3, "srgb"), ("red-pad.png", 3, "srgb"),
        ]
        for (name, bands, interpretation) in expected {
            let facts = try ImageFacts.read(space.output(name))
            #expect(facts.bands == bands && facts.interpretation == interpretation && facts.isEightBit,
                    "\(name): \(facts)")
        }
        // 16-bit values are scaled to 8 bits, not clipped: the mean brightness carries over.
        for (source, output) in [("rgb-16.png", "rgb16.png"), ("gray-16.png", "grey16.png")] {
            let deep = try ImageFacts.mean(URL(fileURLWithPath: try Self.corpus(testpngs + source))) / 257
            let shallow = try ImageFacts.mean(space.output(output))
            #expect(abs(deep - shallow) < 3, "\(source): mean \(deep) in 8-bit terms, \(output): \(shallow)")
        }
        let padded = try space.pixels("red-pad.png")
        #expect(padded.pixel(1, 16, is: Colour(r: 255, g: 0, b: 0)), "\(padded.pixel(1, 16))")
        // The float image is not black or white: its values were scaled, not clipped.
        let float = try space.pixels("float.png")
        let mean = Double(float.pixels.reduce(0) { $0 + Int($1) }) / Double(float.pixels.count)
        #expect(mean > 20 && mean < 235, "float.png mean \(mean)")
    }
}
