import CVips
import Foundation
import Testing
@testable import Thumbgen

/// `colour` (`srgb`, `keep`, `p3`) and `keep=icc`: a Display P3 source's green, outside sRGB,
/// measured in CIE Lab through each output's embedded profile by libvips' own `icc_import`
/// (lcms), the `vips` command line, not thumbgen's code.
@Suite("End to end: wide colour")
struct WideColourTests {
    static let vips = "/usr/bin/vips"

    /// A 48×48 source of Display P3's pure green (0, 255, 0), tagged with libvips' own P3
    /// profile (not thumbgen's), as `name` in `space`.
    static func p3Green(in space: Workspace, _ name: String) async throws {
        let scratch = try TemporaryDirectory("p3-green")
        let black = scratch.file("black.v").path, green = scratch.file("green.v").path
        let tagged = scratch.file("tagged.v").path
        _ = try await ToolRun.checked(vips, ["black", black, "48", "48", "--bands", "3"])
        _ = try await ToolRun.checked(vips, ["linear", black, green, "0 0 0", "0 255 0", "--uchar"])
        _ = try await ToolRun.checked(vips, ["copy", green, tagged, "--interpretation", "srgb"])
        _ = try await ToolRun.checked(vips, ["copy", tagged, space.folder.file(name).path + "[profile=p3]"])
    }

    /// The Lab colour at the centre of `url`, through its embedded profile (sRGB's when it has
    /// none, as a browser assumes).
    static func lab(_ url: URL) async throws -> [Double] {
        let scratch = try TemporaryDirectory("lab")
        let lab = scratch.file("lab.v").path
        _ = try await ToolRun.checked(vips, ["icc_import", url.path, lab, "--embedded", "--input-profile", "srgb",
                                       "--pcs", "lab"])
        let point = try await ToolRun.checked(vips, ["getpoint", lab, "16", "16"])
        return point.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// CIE76 ΔE.
    static func distance(_ a: [Double], _ b: [Double]) -> Double {
        sqrt(zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +))
    }

    /// The ICC profile embedded in `url`, as libvips reads it.
    static func profile(_ url: URL) throws -> [UInt8]? {
        try VipsRuntime.start()
        guard let image = testLoadImage(url.path, access: VIPS_ACCESS_RANDOM, failOn: VIPS_FAIL_ON_NONE) else {
            throw FixtureError("loading \(url.lastPathComponent)")
        }
        defer { tg_unref(image) }
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_typeof(image, "icc-profile-data") != 0,
              vips_image_get_blob(image, "icc-profile-data", &data, &length) == 0, let data else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    @Test("keep and p3 keep a green outside sRGB in every format that carries a profile; srgb loses it",
          arguments: ["png", "jpeg", "webp", "avif", "jxl", "tiff"])
    func keepsTheGamut(format: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.vips) else {
            print("skipped: \(Self.vips) is not installed (scripts/setup installs libvips-tools)")
            return
        }
        let space = try Workspace("wide-\(format)")
        try await Self.p3Green(in: space, "green.png")
        let source = try await Self.lab(space.folder.file("green.png"))
        let sourceProfile = try Self.profile(space.folder.file("green.png"))
        let rows = ["srgb", "keep", "p3"].map { ["green.png", "\($0).\(format)", "32", $0, format] }
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "colour", "format"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")
        let srgb = try await Self.lab(space.output("srgb.\(format)")), keep = try await Self.lab(space.output("keep.\(format)"))
        let p3 = try await Self.lab(space.output("p3.\(format)"))
        // Lossy formats move a flat colour a little; clipping to sRGB moves this one about 30.
        #expect(Self.distance(keep, source) < 5, "keep \(keep) source \(source)")
        #expect(Self.distance(p3, source) < 5, "p3 \(p3) source \(source)")
        #expect(Self.distance(srgb, source) > 15, "srgb \(srgb) source \(source)")
        // libjxl stores a profile it recognises as a colour encoding of its own, and its decoder
        // hands back an equivalent profile (one for sRGB too), not the bytes: the Lab figures
        // above are JPEG XL's check.
        guard format != "jxl" else { return }
        #expect(try Self.profile(space.output("srgb.\(format)")) == nil)
        #expect(try Self.profile(space.output("keep.\(format)")) == sourceProfile)
        #expect(try Self.profile(space.output("p3.\(format)")) == ICCProfileWriter.displayP3)
    }

    @Test("keep=icc tags an sRGB output with the compact sRGB profile; a source without a profile stays untagged under keep")
    func keepICC() async throws {
        let space = try Workspace("wide-icc")
        try space.fixture(RawImage(width: 40, height: 30) { x, _ in Colour(r: UInt8(x * 6), g: 90, b: 200) }, "plain.png")
        let rows = [["plain.png", "icc.png", "", "icc"], ["plain.png", "kept.jpeg", "keep", ""],
                    ["plain.png", "plain.jpeg", "", ""], ["plain.png", "icc-p3.webp", "p3", "icc"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "colour", "keep"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(try Self.profile(space.output("icc.png")) == ICCProfileWriter.sRGB)
        #expect(try Self.profile(space.output("kept.jpeg")) == nil)
        #expect(try Data(contentsOf: space.output("kept.jpeg")) == Data(contentsOf: space.output("plain.jpeg")))
        #expect(try Self.profile(space.output("icc-p3.webp")) == ICCProfileWriter.displayP3)
    }

    @Test("A GIF cannot carry a profile: the row fails naming the column, the other rows are written")
    func gifRefused() async throws {
        let space = try Workspace("wide-gif")
        try space.fixture(RawImage(width: 40, height: 30) { _, _ in Colour(r: 10, g: 200, b: 30) }, "a.png")
        let rows = [["a.png", "a.gif", "p3", ""], ["a.png", "b.gif", "", "icc"], ["a.png", "c.png", "p3", ""],
                    ["a.png", "d.gif", "srgb", ""], ["a.png", "e.avif", "", "copyright"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "colour", "keep"], rows))
        #expect(run.status == 1)
        let first = run.report?.row(2)?.error?.message ?? "", second = run.report?.row(3)?.error?.message ?? ""
        #expect(first.contains("colour") && first.contains("GIF"), "\(first)")
        #expect(second.contains("keep") && second.contains("GIF"), "\(second)")
        #expect(run.report?.row(6)?.error?.message.contains("JPEG, PNG and WebP") == true)
        #expect(space.outputFiles.sorted() == ["c.png", "d.gif"])
    }

    @Test("The compact profiles: sRGB's is sRGB by content, Display P3's colorants are the published ones")
    func profiles() throws {
        #expect(SRGBProfile.matches(ICCProfileWriter.sRGB))
        #expect(!SRGBProfile.matches(ICCProfileWriter.displayP3))
        let tags = try #require(ICCTagTable(ICCProfileWriter.displayP3))
        #expect(tags.colourSpace == "RGB " && tags.deviceClass == "mntr" && tags.connectionSpace == "XYZ ")
        // Display P3's colorants adapted to D50, as Apple's and the ICC's registry publish them.
        let published = ["rXYZ": [0.5151, 0.2412, -0.0011], "gXYZ": [0.2920, 0.6922, 0.0419],
                         "bXYZ": [0.1571, 0.0666, 0.7841]]
        for (tag, expected) in published {
            let xyz = try #require(tags.xyz(tag))
            #expect(zip(xyz, expected).allSatisfy { abs($0 - $1) < 0.0006 }, "\(tag) \(xyz)")
        }
        #expect(ICCProfileWriter.displayP3.count < 600 && ICCProfileWriter.sRGB.count < 600)
        var spec = ThumbnailSpec()
        let plain = spec.identifier
        spec.colour = .p3
        spec.keep.icc = true
        #expect(spec.identifier == plain + ";colour=p3;keep=icc")
    }
}
