import Foundation
import Testing
import Thumbgen

/// Smart crop (`attention`, `entropy`) on every loader, upright and rotated: a row's output is
/// the same whether it is its source's only row (the source streams through one sequential
/// pass) or shares a decode with other rows (the pixels are decoded into memory first).
@Suite("End to end: smart crop alone and shared")
struct SmartCropSharingTests {
    /// A picture with its detail off centre, so that smart crop has something to find.
    static let picture = RawImage(width: 480, height: 320) { x, y in
        guard x >= 300 && y >= 100 else { return Colour(r: 120, g: 130, b: 140) }
        return (x / 6 + y / 6) % 2 == 0 ? .red : .yellow
    }

    /// The sources: generated upright ones in every writable loader's format (AVIF stands for
    /// HEIF: libheif applies `irot` itself, so a rotated HEIF reaches thumbgen upright), rotated
    /// JPEG and PNG (EXIF, `eXIf`), and rotated ones from the corpora (EXIF in JPEG, TIFF's
    /// orientation tag, EXIF in WebP).
    static func sources(in space: Workspace) throws -> [String] {
        var names: [String] = []
        for format in [OutputFormat.jpeg, .png, .tiff, .webp, .avif] {
            let name = "upright.\(format.fileExtension)"
            try space.fixture(picture, name, as: format)
            names.append(name)
        }
        let jpeg = try picture.encoded(as: .jpeg)
        _ = try space.folder.write(FixtureBytes.jpeg(jpeg, withExifOrientation: 6), to: "rotated.jpg")
        names.append("rotated.jpg")
        let png = try picture.encoded(as: .png)
        _ = try space.folder.write(FixtureBytes.png(png, withExifOrientation: 8), to: "rotated.png")
        names.append("rotated.png")
        if let corpora = TestPaths.corpora {
            names += ["exif-orientation/Landscape_5.jpg", "pillow/Tests/images/g4_orientation_6.tif",
                      "pillow/Tests/images/hopper_orientation_8.webp"]
                .map { corpora.appendingPathComponent($0).path }
        }
        return names
    }

    @Test("One row alone gives the same bytes as the same row sharing its source", arguments: ["attention", "entropy"])
    func aloneEqualsShared(gravity: String) async throws {
        let space = try Workspace()
        let sources = try Self.sources(in: space)
        // Alone: one row per source. Shared: the same row, then two more of the same size
        // (so that the decode is shared: same shrink-on-load).
        var alone: [[String]] = [], shared: [[String]] = []
        for (index, src) in sources.enumerated() {
            alone.append([src, "alone-\(index).png", gravity])
            shared.append([src, "shared-\(index).png", gravity])
            shared.append([src, "other-\(index).png", gravity == "attention" ? "entropy" : "attention"])
            shared.append([src, "center-\(index).png", "center"])
        }
        let options = ["--fit", "cover", "--size", "96x96", "--no-cache"]
        let first = try await space.run(manifest: CSV.manifest(["src", "out", "gravity"], alone), options)
        #expect(first.status == 0, "\(first.result.stderr)")
        let second = try await space.run(manifest: CSV.manifest(["src", "out", "gravity"], shared),
                                         name: "shared.csv", options)
        #expect(second.status == 0, "\(second.result.stderr)")
        for (index, src) in sources.enumerated() {
            let one = try? Data(contentsOf: space.output("alone-\(index).png"))
            let many = try? Data(contentsOf: space.output("shared-\(index).png"))
            #expect(one != nil && one == many, "\(src): alone and shared outputs differ")
        }
    }
}
