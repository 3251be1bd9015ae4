import CVips
import Foundation
import Testing

/// The cache's invariant under the fast paths (shared decodes, box pre-shrink, vector code
/// chosen by size, the sRGB profile skip): an output depends on its source and recipe alone, so
/// a web build's ten widths of one image come out byte for byte as each width rendered alone.
@Suite("Many sizes of one source: grouped or alone, the same bytes")
struct SizeGroupIdentityTests {
    /// A srcset's widths (the benchmark's ten), plus one large enough for vector code and the
    /// box pre-shrink to take part.
    static let sizes = [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 600]

    @Test("Eleven sizes of a JPEG (sRGB profile), a PNG with alpha, a WebP and an AVIF (P3 profile), together and one at a time",
          arguments: ["workers", "none"])
    func groupedEqualsAlone(isolation: String) async throws {
        let space = try Workspace()
        let gradient = RawImage(width: 200, height: 125) { x, y in
            Colour(r: UInt8(x * 255 / 199), g: UInt8(y * 255 / 124), b: UInt8((x * y) % 256))
        }
        let jpeg = try RawImage(width: 800, height: 500) { x, y in
            Colour(r: UInt8(x * 255 / 799), g: UInt8(y * 255 / 499), b: UInt8((x ^ y) & 0xff))
        }.encoded(as: .jpeg)
        _ = try space.folder.write(FixtureBytes.jpeg(jpeg, withICCProfile: try FixtureBytes.libvipsProfile("srgb")),
                                   to: "photo.jpg")
        var translucent = gradient
        translucent.bands = 4
        var rgba: [UInt8] = []
        for pixel in 0..<(gradient.width * gradient.height) {
            let alpha = UInt8(pixel % 200 + 55)
            rgba += gradient.pixels[(pixel * 3)..<(pixel * 3 + 3)] + [alpha]
        }
        translucent.pixels = rgba
        _ = try space.folder.write(try translucent.scaledPNG(by: 12), to: "art.png")   // 2400×1500
        try space.fixture(RawImage(width: 900, height: 600) { x, y in
            Colour(r: UInt8(x % 256), g: UInt8(y % 256), b: 128)
        }, "banner.webp", as: .webp)
        // An AVIF with a wide-gamut profile: libvips 8.14's heifload hands its profile over as
        // memory the load frees, which a decode held in memory for several sizes outlived.
        let wide = try RawImage(width: 600, height: 400) { x, y in
            Colour(r: UInt8(x * 255 / 599), g: UInt8(y * 255 / 399), b: UInt8((x + y) % 256))
        }.vipsImage()
        defer { tg_unref(wide) }
        let p3 = try FixtureBytes.libvipsProfile("p3")
        p3.withUnsafeBytes { _ = vips_image_set_blob_copy(wide, "icc-profile-data", $0.baseAddress, $0.count) }
        _ = try space.folder.write(try VipsOperationCall.blob("heifsave_buffer", input: wide,
                                                              options: "Q=80,compression=av1", output: "buffer"),
                                   to: "wide.avif")
        let sources = ["photo.jpg", "art.png", "banner.webp", "wide.avif"]
        func row(_ source: String, _ size: Int) -> [String] {
            [source, "\(size)x\(size)", "\((source as NSString).deletingPathExtension)-\(size).webp"]
        }

        let grouped = try await space.run(
            manifest: CSV.manifest(["src", "size", "out"], sources.flatMap { s in Self.sizes.map { row(s, $0) } }),
            ["--isolation", isolation, "--no-cache"])
        #expect(grouped.status == 0, "\(grouped.result.stderr)")
        let together = try outputs(in: space.out)
        #expect(together.count == sources.count * Self.sizes.count)

        for size in Self.sizes {
            let alone = try Workspace()
            for source in sources {
                try FileManager.default.copyItem(at: space.folder.file(source), to: alone.folder.file(source))
            }
            let run = try await alone.run(manifest: CSV.manifest(["src", "size", "out"], sources.map { row($0, size) }),
                                          ["--isolation", isolation, "--no-cache"])
            #expect(run.status == 0, "\(run.result.stderr)")
            for (name, bytes) in try outputs(in: alone.out) {
                #expect(together[name] == bytes, "\(name) differs when rendered alone (\(isolation))")
            }
        }
    }

    private func outputs(in folder: URL) throws -> [String: Data] {
        var found: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            found[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return found
    }
}
