import CVips
import Foundation
import Testing
@testable import Thumbgen

/// The cache's invariant under every way rows of one source share work (one decode, scaled
/// pixels shared by the formats of a size, smart crop on shared pixels): a row's output depends
/// on its source and its own recipe alone. Every row below is rendered twice, once beside all
/// the other rows of its source and once as the only row of a byte-identical copy of it, and
/// the two outputs must be the same bytes.
@Suite("A source's rows: together or each alone, the same bytes")
struct SharedRenderIdentityTests {
    /// One row's recipe, as manifest columns (`src` and `out` are added per run).
    struct Recipe {
        var size: String
        var format: String
        var fit = ""
        var crop = ""
        var gravity = ""
        var animated = ""
    }

    /// Every format, every fit, crop, smart crop, several sizes of one format and one size in
    /// several formats.
    static let stills: [Recipe] = [
        Recipe(size: "400", format: "webp"), Recipe(size: "400", format: "jpeg"),
        Recipe(size: "400", format: "png"), Recipe(size: "200", format: "webp"),
        Recipe(size: "200", format: "jpeg"), Recipe(size: "100", format: "avif"),
        Recipe(size: "100", format: "gif"), Recipe(size: "90", format: "tiff"),
        Recipe(size: "150x150", format: "webp", fit: "cover"),
        Recipe(size: "150x150", format: "jpeg", fit: "cover"),
        Recipe(size: "150x150", format: "jpeg", fit: "cover", gravity: "attention"),
        Recipe(size: "150x150", format: "webp", fit: "cover", gravity: "entropy"),
        Recipe(size: "150x150", format: "png", fit: "contain"),
        Recipe(size: "120x80", format: "jpeg", fit: "fill"),
        Recipe(size: "64x64", format: "webp", fit: "none"),
        Recipe(size: "200", format: "webp", crop: "0.1,0.2,0.5,0.5"),
        Recipe(size: "200", format: "jpeg", crop: "0.1,0.2,0.5,0.5"),
    ]

    /// An animation's rows: every frame (WebP, GIF) and the first frame only.
    static let animations: [Recipe] = [
        Recipe(size: "48", format: "webp", animated: "true"),
        Recipe(size: "48", format: "gif", animated: "true"),
        Recipe(size: "32", format: "webp", animated: "true"),
        Recipe(size: "48", format: "jpeg"), Recipe(size: "48", format: "webp"),
    ]

    @Test("Stills (JPEG, 8-bit PNG with alpha, 16-bit PNG, lossy WebP with and without alpha) and an animated GIF, every recipe",
          arguments: ["workers", "none"])
    func togetherEqualsAlone(isolation: String) async throws {
        let space = try Workspace()
        let sources = try Self.writeSources(in: space)
        var together: [[String]] = [], alone: [[String]] = []
        for (source, recipes) in sources {
            for (index, recipe) in recipes.enumerated() {
                let name = "\((source as NSString).deletingPathExtension)-\(index)"
                let copy = "alone-\(name)-\(source)"
                try FileManager.default.copyItem(at: space.folder.file(source), to: space.folder.file(copy))
                together.append(Self.row(recipe, src: source, out: "together/\(name).\(recipe.format)"))
                alone.append(Self.row(recipe, src: copy, out: "alone/\(name).\(recipe.format)"))
            }
        }
        let header = ["src", "out", "size", "format", "fit", "crop", "gravity", "animated"]
        let run = try await space.run(manifest: CSV.manifest(header, together + alone),
                                      ["--isolation", isolation, "--no-cache"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        let failed = report.rows.filter { $0.status != "written" }.map { "\($0.row): \($0.error?.message ?? $0.status)" }
        #expect(failed.isEmpty, "\(failed)")
        for row in together {
            let out = row[1]
            let mine = try Data(contentsOf: space.output(out))
            let own = try Data(contentsOf: space.output(out.replacingOccurrences(of: "together/", with: "alone/")))
            // A Bool, not the two Data: on a failure Swift Testing would diff them byte by byte,
            // which takes minutes for images.
            let same = mine == own
            #expect(same, "\(out) (\(mine.count) bytes) differs from the same row alone (\(own.count) bytes; \(isolation))")
        }
    }

    @Test("The static-site command's six rows of a source: each as a one-row manifest writes the same bytes")
    func staticSiteRowsAlone() async throws {
        let space = try Workspace()
        let sources = try Self.writeSources(in: space).map(\.0).filter { $0 != "frames.gif" }
        for source in sources {
            try FileManager.default.createDirectory(at: space.folder.file("photos"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: space.folder.file(source), to: space.folder.file("photos/\(source)"))
        }
        let folderRun = try await CLIRunner.run(
            ["photos", "--out", "site", "--size", "320,640,1280", "--format", "webp,jpeg", "--no-cache"],
            in: space.folder.url, cacheDirectory: space.cache)
        #expect(folderRun.status == 0, "\(folderRun.stderr)")
        let written = TemporaryDirectory.files(under: space.folder.file("site"))
        #expect(written.count == sources.count * 6, "\(written)")
        for source in sources {
            for width in [320, 640, 1280] {
                for format in ["webp", "jpeg"] {
                    let alone = try await space.run(
                        manifest: CSV.manifest(["src", "width", "format", "out"],
                                               [[source, "\(width)", format, "alone.{ext}"]]),
                        ["--no-cache"])
                    #expect(alone.status == 0, "\(alone.result.stderr)")
                    let out = try #require(alone.report?.rows.first?.out)
                    let name = (source as NSString).deletingPathExtension
                    let size = try #require(alone.report?.rows.first).width.map { "\($0)" } ?? "?"
                    let match = written.filter {
                        $0.hasPrefix("\(name)-\(size)x") && $0.hasSuffix(format == "jpeg" ? ".jpg" : ".webp")
                    }
                    #expect(match.count == 1, "\(source) at \(width) \(format): \(match)")
                    guard let among = match.first else { continue }
                    let same = try Data(contentsOf: space.output(out))
                        == Data(contentsOf: space.folder.file("site/\(among)"))
                    #expect(same, "\(source) at \(width) as \(format) differs alone and among its six rows")
                }
            }
        }
    }

    private static func row(_ recipe: Recipe, src: String, out: String) -> [String] {
        [src, out, recipe.size, recipe.format, recipe.fit, recipe.crop, recipe.gravity, recipe.animated]
    }

    /// The sources, written into `space`, each with the recipes its rows take.
    private static func writeSources(in space: Workspace) throws -> [(String, [Recipe])] {
        // Detail everywhere: flat colour comes out alike whatever the decode or resampling.
        let detail = RawImage(width: 1600, height: 1000) { x, y in
            Colour(r: UInt8(x * 255 / 1599), g: UInt8((x ^ y) & 0xff), b: UInt8((x * 7 + y * 3) % 256))
        }
        try space.fixture(detail, "photo.jpg", as: .jpeg)
        try space.fixture(detail, "banner.webp", as: .webp)
        var translucent = RawImage(width: 1200, height: 800) { x, y in
            Colour(r: UInt8(x % 256), g: UInt8(y % 256), b: UInt8((x + y) % 256))
        }
        translucent.bands = 4
        var rgba: [UInt8] = []
        rgba.reserveCapacity(translucent.width * translucent.height * 4)
        for pixel in 0..<(translucent.width * translucent.height) {
            rgba += translucent.pixels[(pixel * 3)..<(pixel * 3 + 3)] + [UInt8(pixel % 251)]
        }
        translucent.pixels = rgba
        try space.fixture(translucent, "alpha.png", as: .png)
        try space.fixture(translucent, "veil.webp", as: .webp)
        _ = try space.folder.write(try deepPNG(width: 900, height: 700), to: "deep.png")
        let strip = RawImage(width: 96, height: 64 * 4) { x, y in
            Colour(r: UInt8((x * 2 + y) % 256), g: UInt8(y / 64 * 60), b: UInt8(x % 256))
        }
        _ = try space.folder.write(try strip.encodedAnimation(pageHeight: 64, as: .gif), to: "frames.gif")
        return [("photo.jpg", stills), ("banner.webp", stills), ("alpha.png", stills), ("veil.webp", stills),
                ("deep.png", stills), ("frames.gif", animations)]
    }

    /// A 16-bit RGB PNG with a gradient over the whole 16-bit range.
    private static func deepPNG(width: Int, height: Int) throws -> Data {
        try VipsRuntime.start()
        var values: [UInt16] = []
        values.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                values += [UInt16(x * 65535 / (width - 1)), UInt16(y * 65535 / (height - 1)),
                           UInt16(((x * 31) ^ (y * 17)) & 0xffff)]
            }
        }
        guard let image = values.withUnsafeBytes({
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), 3,
                                            VIPS_FORMAT_USHORT)
        }) else { throw FixtureError("vips_image_new_from_memory_copy") }
        defer { tg_unref(image) }
        image.pointee.Type = VIPS_INTERPRETATION_RGB16
        return try VipsOperationCall.blob("pngsave_buffer", input: image, output: "buffer")
    }
}
