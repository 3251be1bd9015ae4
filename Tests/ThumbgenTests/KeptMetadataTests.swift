import Foundation
import Testing
@testable import Thumbgen

/// `keep=copyright` and `keep=exif`, read back by an independent reader, Debian's `exiftool`,
/// from a source whose metadata exiftool itself wrote (EXIF with GPS and an orientation, XMP
/// with a GPS position, IPTC with a city).
@Suite("End to end: kept metadata")
struct KeptMetadataTests {
    static let exiftool = "/usr/bin/exiftool"

    /// Every tag exiftool reads in `url`, as `Group:Tag` → value (`-G1 -a -n`: numbers raw).
    static func tags(_ url: URL) async throws -> [String: String] {
        let text = try await ToolRun.checked(exiftool, ["-j", "-G1", "-a", "-n", url.path])
        let objects = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
        return (objects?.first ?? [:]).mapValues { "\($0)" }
    }

    /// A 120×80 JPEG stored on its side (orientation 6), with rights, camera and position.
    static func source(in space: Workspace) async throws -> URL {
        try space.fixture(RawImage(width: 120, height: 80) { x, y in Colour(r: UInt8(x * 2), g: UInt8(y * 3), b: 120) },
                          "photo.jpg", as: .jpeg)
        let url = space.folder.file("photo.jpg")
        _ = try await ToolRun.checked(exiftool, [
            "-q", "-overwrite_original", "-Artist=Ann Example", "-Copyright=(c) 2026 Ann Example", "-Make=Canon",
            "-Model=EOS Test", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
            "-GPSLongitudeRef=E", "-XMP-dc:Rights=(c) 2026 Ann Example, all rights reserved",
            "-XMP-photoshop:Credit=Example Agency", "-XMP-dc:Creator=Ann Example", "-XMP-exif:GPSLatitude=48.8584",
            "-IPTC:CopyrightNotice=(c) Ann", "-IPTC:City=Paris", "-Orientation#=6", url.path,
        ])
        return url
    }

    @Test("copyright keeps creator, rights and credit and nothing else; exif keeps the camera, drops GPS and the orientation; none keeps nothing",
          arguments: ["jpeg", "png", "webp"])
    func keeps(format: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.exiftool) else {
            print("skipped: exiftool is not installed (scripts/setup --tests installs libimage-exiftool-perl)")
            return
        }
        let space = try Workspace("keep-\(format)")
        let source = try await Self.source(in: space)
        let before = try await Self.tags(source)
        #expect(before["GPS:GPSLatitude"] != nil && before["IPTC:City"] == "Paris", "\(before)")
        let rows = ["copyright", "exif", "copyright,exif", "none"].map { ["photo.jpg", "\($0).\(format)", "60", $0] }
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "keep"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")

        let rights = try await Self.tags(space.output("copyright.\(format)"))
        #expect(rights["IFD0:Artist"] == "Ann Example", "\(rights)")
        #expect(rights["XMP-dc:Rights"] == "(c) 2026 Ann Example, all rights reserved", "\(rights)")
        #expect(rights["XMP-photoshop:Credit"] == "Example Agency" && rights["XMP-dc:Creator"] == "Ann Example")
        #expect(rights["IFD0:Make"] == nil && rights["IPTC:City"] == nil)
        if format == "jpeg" {
            #expect(rights["IPTC:CopyrightNotice"] == "(c) 2026 Ann Example, all rights reserved", "\(rights)")
        }
        let exif = try await Self.tags(space.output("exif.\(format)"))
        #expect(exif["IFD0:Make"] == "Canon" && exif["IFD0:Copyright"] == "(c) 2026 Ann Example", "\(exif)")
        #expect(exif["IFD0:Orientation"] == "1", "\(exif)")
        #expect(exif["XMP-dc:Rights"] == nil)
        let both = try await Self.tags(space.output("copyright,exif.\(format)"))
        #expect(both["IFD0:Make"] == "Canon" && both["XMP-photoshop:Credit"] == "Example Agency", "\(both)")
        for tags in [rights, exif, both, try await Self.tags(space.output("none.\(format)"))] {
            let gps = tags.keys.filter { $0.contains("GPS") }
            #expect(gps.isEmpty, "\(gps)")
            #expect(!tags.keys.contains { $0.hasPrefix("IFD1:") })
            #expect(tags["ExifTool:Warning"] == nil, "\(tags["ExifTool:Warning"] ?? "")")
        }
        let none = try await Self.tags(space.output("none.\(format)"))
        #expect(!none.keys.contains { $0.hasPrefix("IFD0:") || $0.hasPrefix("XMP") || $0.hasPrefix("IPTC:") }, "\(none)")
        // The pixels are upright: 120×80 on its side is 60 wide, 90 high.
        #expect(try ImageFacts.read(space.output("exif.\(format)")).width == 60)
    }

    @Test("Rows differing only in keep are keyed apart; a bad cell fails its row naming the column")
    func keysAndErrors() async throws {
        var spec = ThumbnailSpec()
        let plain = spec.identifier
        spec.keep = try #require(KeptMetadata.parse("exif, copyright"))
        #expect(spec.identifier == plain + ";keep=copyright+exif")
        #expect(KeptMetadata.parse("none") == KeptMetadata() && KeptMetadata.parse("gps") == nil)
        let space = try Workspace("keep-bad")
        try space.fixture(RawImage(width: 20, height: 20) { _, _ in Colour(r: 1, g: 2, b: 3) }, "a.png")
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "keep", "colour"],
                                                             [["a.png", "a.png", "gps", ""], ["a.png", "b.png", "", "wide"],
                                                              ["a.png", "c.png", "exif", ""]]))
        #expect(run.status == 1)
        #expect(run.report?.row(2)?.error?.message.contains("keep") == true)
        #expect(run.report?.row(3)?.error?.message.contains("colour") == true)
        #expect(space.outputFiles == ["c.png"])
    }
}
