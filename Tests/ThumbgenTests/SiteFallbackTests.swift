import Foundation
import Testing
@testable import Thumbgen

/// `thumbgen site`'s PNG fallback (an image with alpha): written at zlib level 2 after the `sub`
/// row filter, not libvips' level 6 without one, since only browsers without the `<source>`
/// formats fetch it; `--png-compression` and `--png-filter` change how a PNG is packed, never
/// what it shows. And JPEG XL sources, which fall back like any other.
@Suite("End to end: thumbgen site's fallbacks, --png-compression, JPEG XL sources")
struct SiteFallbackTests {
    @Test("The fallback PNG is a row's at --png-compression 2 --png-filter sub to the byte, the same pixels as libvips' default; --formats none keeps the default; a level outside 0-9 is refused")
    func fallbackLevel() async throws {
        let folder = try TemporaryDirectory("site-fallback")
        let logo = RawImage(width: 800, height: 600, alpha: true) { x, y in
            Colour(r: UInt8((x * y) % 251), g: UInt8(y % 256), b: UInt8(x % 256), a: UInt8((x / 4) % 256))
        }
        for site in ["site", "plain"] {
            try folder.write(try logo.encoded(as: .png), to: "\(site)/images/logo.png")
            try folder.write("<!DOCTYPE html><html><body><img src=\"images/logo.png\" alt=logo></body></html>\n",
                             to: "\(site)/index.html")
        }
        let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache", "--widths", "320", "--no-config"],
                                          in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        let plain = try await CLIRunner.run(["site", "plain", "--cache-dir", "cache", "--widths", "320",
                                             "--formats", "none", "--no-config"], in: folder.url)
        #expect(plain.status == 0, "\(plain.stderr)")
        func fallback(_ site: String) throws -> Data {
            let page = try String(contentsOf: folder.file("\(site)/index.html"), encoding: .utf8)
            let png = try #require(page.firstMatch(of: /_thumbgen\/images\/logo-320\.[0-9a-f]{8}\.png/), "\(page)")
            return try Data(contentsOf: folder.file(site).appendingPathComponent(String(png.output)))
        }

        try folder.write("src,out,size,format\nsite/images/logo.png,logo.png,320,png\n", to: "rows.csv")
        var rows: [String: Data] = [:]
        for (name, flags) in [("4", ["--png-compression", "4"]), ("6", ["--png-compression", "6", "--png-filter", "none"]),
                              ("9", ["--png-compression", "9"]), ("site", ["--png-compression", "2", "--png-filter", "sub"]),
                              ("adaptive", ["--png-filter", "adaptive"])] {
            let render = try await CLIRunner.run(["rows.csv", "--out", name, "--no-cache", "--no-config",
                                                  "--placeholders", "none"] + flags, in: folder.url)
            #expect(render.status == 0, "\(render.stderr)")
            rows[name] = try Data(contentsOf: folder.file("\(name)/logo.png"))
        }
        let byDefault = try await CLIRunner.run(["rows.csv", "--out", "default", "--no-cache", "--no-config"],
                                                in: folder.url)
        #expect(byDefault.status == 0, "\(byDefault.stderr)")
        #expect(try Data(contentsOf: folder.file("default/logo.png")) == rows["6"], "render's default is level 6")

        #expect(try fallback("site") == rows["site"])
        #expect(try fallback("plain") == rows["6"], "with --formats none the PNG is every browser's image")
        // Each level and filter packs the same pixels into other bytes.
        let packings = ["4", "6", "9", "site", "adaptive"].map { rows[$0]! }
        #expect(Set(packings).count == packings.count)
        let pixels = try packings.map { try LosslessMetadataTests.pixels($0, as: "png") }
        #expect(pixels.allSatisfy { $0.bands == 4 && $0.pixels == pixels[0].pixels })

        let refused = try await CLIRunner.run(["rows.csv", "--out", "bad", "--no-cache", "--png-compression", "10"],
                                              in: folder.url)
        #expect(refused.status == 2 && refused.stderr.contains("--png-compression must be from 0 to 9"), "\(refused.stderr)")
        let unknown = try await CLIRunner.run(["rows.csv", "--out", "bad", "--no-cache", "--png-filter", "best"], in: folder.url)
        #expect(unknown.status == 2 && unknown.stderr.contains("--png-filter"), "\(unknown.stderr)")
    }

    @Test("A JPEG XL image is made responsive like any other: a WebP source and a JPEG fallback, its size from its header")
    func jpegXLSource() async throws {
        let folder = try TemporaryDirectory("site-jxl")
        let photo = try SiteCommandTests.photo(width: 1000, height: 750).encoded(as: .jxl)
        try folder.write(photo, to: "site/images/photo.jxl")
        try folder.write("<!DOCTYPE html><html><body><img src=\"images/photo.jxl\" alt=photo></body></html>\n",
                         to: "site/index.html")
        let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache", "--no-config"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("images: 1 rewritten, 0 failed, 0 left alone"), "\(run.stderr)")
        let page = try String(contentsOf: folder.file("site/index.html"), encoding: .utf8)
        #expect(page.contains("<source type=\"image/webp\" srcset=\"_thumbgen/images/photo-320."), "\(page)")
        #expect(page.contains("<img src=\"images/photo.jxl\" alt=photo srcset=\"_thumbgen/images/photo-320."))
        #expect(page.contains(".jpg 1000w\" sizes=\"100vw\" width=\"1000\" height=\"750\""), "\(page)")
    }
}
