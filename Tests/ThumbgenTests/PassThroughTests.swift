import Foundation
import Testing
import Thumbgen

/// A source already at the target size and format is passed through: its compressed data is
/// copied, only its metadata removed; anything that needs the pixels changed is re-encoded.
@Suite("End to end: pass-through")
struct PassThroughTests {
    /// The bytes from the first SOS marker on: a JPEG's compressed image data.
    static func scanData(_ jpeg: Data) -> Data? {
        jpeg.range(of: Data([0xFF, 0xDA])).map { jpeg.subdata(in: $0.lowerBound..<jpeg.count) }
    }

    /// A PNG's IDAT chunks, or a WebP's VP8/VP8L chunk: the compressed image data, whole.
    static func imageChunks(_ data: Data) -> [Data] {
        let bytes = [UInt8](data)
        var chunks: [Data] = []
        if Magic.isPNG(data) {
            var offset = 8
            while offset + 12 <= bytes.count {
                let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                let end = offset + 12 + length
                guard end <= bytes.count else { break }
                if bytes[offset + 4..<offset + 8] == Array("IDAT".utf8)[...] { chunks.append(Data(bytes[offset..<end])) }
                offset = end
            }
        } else if Magic.isWebP(data) {
            var offset = 12
            while offset + 8 <= bytes.count {
                let size = bytes[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
                let end = min(bytes.count, offset + 8 + size + (size & 1))
                let fourCC = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
                if fourCC == "VP8 " || fourCC == "VP8L" {
                    chunks.append(Data(bytes[offset..<end]))
                }
                offset = end
            }
        }
        return chunks
    }

    @Test("A JPEG, PNG and WebP at the target size and format keep their compressed data; EXIF goes")
    func passedThrough() async throws {
        let space = try Workspace()
        let picture = RawImage.quadrants(width: 64, height: 48)
        let jpeg = FixtureBytes.jpeg(try picture.encoded(as: .jpeg, quality: 90), withExifOrientation: 1)
        _ = try space.folder.write(jpeg, to: "exact.jpg")
        let png = try space.fixture(picture, "exact.png", as: .png)
        let webp = try space.fixture(picture, "exact.webp", as: .webp)
        let rows = [
            ["exact.jpg", "a.jpg", "64x48", ""], ["exact.png", "b.png", "64x48", ""],
            ["exact.webp", "c.webp", "", ""],
            // Re-encoded: an explicit quality, another format, another size.
            ["exact.jpg", "d.jpg", "64x48", "40"], ["exact.jpg", "e.png", "64x48", ""],
            ["exact.png", "f.png", "32x24", ""],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "quality"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")

        let a = try Data(contentsOf: space.output("a.jpg"))
        #expect(Self.scanData(a) == Self.scanData(jpeg), "the JPEG's scan data was re-encoded")
        #expect(!FixtureBytes.contains(a, Array("Exif".utf8)), "EXIF left in the pass-through")
        #expect(a.count < jpeg.count)
        #expect(try space.pixels("a.jpg").pixels == PixelImage.load(space.folder.file("exact.jpg")).pixels)
        for (name, source) in [("b.png", png), ("c.webp", webp)] {
            let sourceChunks = Self.imageChunks(try Data(contentsOf: source))
            #expect(!sourceChunks.isEmpty)
            #expect(Self.imageChunks(try Data(contentsOf: space.output(name))) == sourceChunks,
                    "\(name): the compressed data was re-encoded")
        }
        let report = try #require(run.report)
        #expect(report.row(2)?.width == 64 && report.row(2)?.height == 48)
        #expect(report.row(2)?.bytes == a.count)

        let d = try Data(contentsOf: space.output("d.jpg"))
        #expect(Self.scanData(d) != Self.scanData(jpeg), "quality=40 must re-encode")
        #expect(Magic.isPNG(try Data(contentsOf: space.output("e.png"))))
        #expect(try ImageFacts.read(space.output("f.png")).width == 32)
    }

    @Test("A source needing its colours or orientation changed, or a broken one, is not passed through")
    func notPassedThrough() async throws {
        let space = try Workspace()
        let picture = RawImage.quadrants(width: 64, height: 48)
        let plain = try picture.encoded(as: .jpeg, quality: 90)
        _ = try space.folder.write(FixtureBytes.jpeg(plain, withExifOrientation: 3), to: "turned.jpg")
        _ = try space.folder.write(FixtureBytes.jpeg(plain, withICCProfile: try FixtureBytes.cmykProfile()),
                                   to: "profile.jpg")
        _ = try space.folder.write(FixtureBytes.truncated(plain, keeping: 0.6), to: "broken.jpg")
        let rows = [["turned.jpg", "turned.jpg"], ["profile.jpg", "profile.jpg"], ["broken.jpg", "broken.jpg"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "64x48"])
        let report = try #require(run.report)
        // Orientation 3 is a half turn: the red top-left quadrant ends bottom-right.
        let turned = try space.pixels("turned.jpg")
        #expect(turned.pixel(56, 40, is: .red, tolerance: 24), "\(turned.pixel(56, 40))")
        #expect(Self.scanData(try Data(contentsOf: space.output("turned.jpg"))) != Self.scanData(plain))
        // The profile is used (or, unusable for RGB data as this one is, ignored) and never copied.
        let profiled = try Data(contentsOf: space.output("profile.jpg"))
        #expect(!FixtureBytes.contains(profiled, Array("ICC_PROFILE".utf8)))
        #expect(report.row(4)?.error?.code == "decode_failed")
        #expect(!space.outputFiles.contains("broken.jpg"))
    }
}
