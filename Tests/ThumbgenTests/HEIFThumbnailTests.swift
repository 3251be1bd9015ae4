import Foundation
import Testing
@testable import Thumbgen

/// Shrink-on-load for HEIF: a file's embedded thumbnail image is decoded instead of the
/// primary image whenever it is big enough for every output that shares the decode.
@Suite("Imaging: HEIF thumbnails")
struct HEIFThumbnailTests {
    static var hasEncoder: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc") }

    /// A 1200×800 quadrants picture as HEIC (HEVC) and AVIF, each with a 320-pixel thumbnail
    /// embedded by libheif's own encoder.
    static func fixtures(_ space: Workspace) async throws -> [String] {
        let jpeg = try space.fixture(.quadrants(width: 1200, height: 800), "q.jpg", as: .jpeg, quality: 95)
        var names: [String] = []
        for (name, extra) in [("q.heic", [String]()), ("q.avif", ["-A"])] {
            let output = space.folder.file(name).path
            let status = try await ToolRun.run("/usr/bin/heif-enc", extra + ["-t", "320", "-q", "80", jpeg.path, "-o", output])?.status
            try #require(status == 0, "heif-enc could not write \(name)")
            names.append(name)
        }
        return names
    }

    @Test("The thumbnail is decoded when it is big enough, the primary image when it is not",
          .enabled(if: hasEncoder, "needs heif-enc (scripts/setup --tests installs libheif-examples)"))
    func decoder() async throws {
        let space = try Workspace()
        for name in try await Self.fixtures(space) {
            let decoder = SourceDecoder()
            let opened = try decoder.open(path: space.folder.file(name).path)
            #expect(opened.header.orientedWidth == 1200)
            let scale = try #require(opened.heifThumbnailScale, "\(name): no thumbnail found")
            #expect(abs(scale - 320.0 / 1200) < 0.01, "\(name): \(scale)")
            // 0.2 of 1200 is 240 pixels: the 320-pixel thumbnail serves; 0.5 needs the primary.
            #expect(try decoder.decode(opened, requiredScale: 0.2, shrinkOnLoad: .balanced).image.width == 320, "\(name)")
            let full = try decoder.decode(decoder.open(path: space.folder.file(name).path), requiredScale: 0.5, shrinkOnLoad: .balanced)
            #expect(full.image.width == 1200, "\(name)")
        }
    }

    @Test("Outputs from the thumbnail and from the primary image have their sizes and colours",
          .enabled(if: hasEncoder, "needs heif-enc (scripts/setup --tests installs libheif-examples)"))
    func endToEnd() async throws {
        let space = try Workspace()
        let names = try await Self.fixtures(space)
        let rows = names.flatMap { [[$0, "\($0)-small.png", "240"], [$0, "\($0)-large.png", "600"]] }
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")
        for name in names {
            for (suffix, width) in [("small", 240), ("large", 600)] {
                let image = try space.pixels("\(name)-\(suffix).png")
                #expect(image.width == width && image.height == width * 2 / 3, "\(name) \(suffix)")
                let w = image.width, h = image.height
                for (x, y, colour) in [(w / 4, h / 4, Colour.red), (3 * w / 4, h / 4, .green),
                                       (w / 4, 3 * h / 4, .blue), (3 * w / 4, 3 * h / 4, .yellow)] {
                    #expect(image.pixel(x, y, is: colour, tolerance: 24), "\(name) \(suffix) (\(x),\(y)): \(image.pixel(x, y))")
                }
            }
        }
    }
}
