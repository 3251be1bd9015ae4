import Foundation
import Testing
@testable import Thumbgen

/// An encoder per format: a quality per format, JPEG 4:4:4, lossless and near-lossless WebP,
/// lossless AVIF and JPEG XL. Each is in the cache key; at their defaults, no key (and so no
/// output) changes.
@Suite("Encoders per format")
struct EncoderSettingsTests {
    /// Text and soft edges: what 4:2:0 and lossy coding visibly change.
    static let artwork = RawImage(width: 120, height: 80) { x, y in
        (x / 8 + y / 8) % 2 == 0 ? Colour(r: 220, g: 20, b: 30) : Colour(r: UInt8(x * 2), g: UInt8(y * 3), b: 200)
    }

    @Test("A quality per format: each format's key and bytes are a bare number's for it; defaults keep every key")
    func qualityPerFormat() throws {
        let parsed = try #require(QualitySetting.parse("webp=75, avif=50,JPG=80"))
        #expect(parsed == QualitySetting(all: nil, byFormat: [.webp: 75, .avif: 50, .jpeg: 80]))
        #expect(QualitySetting.parse("80,avif=50") == QualitySetting(all: 80, byFormat: [.avif: 50]))
        for bad in ["", "0", "101", "webp=", "webp=0", "bmp=50", "80,90", "webp=70,webp=80", "a=b=c", "80,"] {
            #expect(QualitySetting.parse(bad) == nil, "\(bad)")
        }

        func spec(_ format: OutputFormat?, _ change: (inout ThumbnailSpec) -> Void = { _ in }) -> ThumbnailSpec {
            var spec = ThumbnailSpec()
            spec.format = format.map { .fixed($0) } ?? .auto
            change(&spec)
            return spec
        }
        // A format named takes its number, under the key a bare number gives it.
        let perFormat: (inout ThumbnailSpec) -> Void = { $0.quality = 90; $0.formatQuality = [.webp: 75, .jpeg: 80] }
        #expect(spec(.webp, perFormat).identifier == spec(.webp) { $0.quality = 75 }.identifier)
        #expect(spec(.jpeg, perFormat).identifier == spec(.jpeg) { $0.quality = 80 }.identifier)
        #expect(spec(.png, perFormat).identifier == spec(.png) { $0.quality = 90 }.identifier)
        #expect(spec(.webp, perFormat).quality(for: .webp) == 75 && spec(.png, perFormat).quality(for: .png) == 90)
        // An `auto` row's key names them all; without any, it is what it was.
        #expect(spec(nil, perFormat).identifier.contains("q=90,jpeg:80,webp:75"))
        #expect(spec(nil) { $0.quality = 90 }.identifier.contains("q=90;"))
        // The defaults add nothing to any key: the text every existing output's key was made of.
        let defaults = EncodingOptions()
        #expect(OutputFormat.allCases.map(defaults.identifier(for:))
                == ["jp=0", "pp=0", "we=4", "ae=4", "xe=7", "ge=7", "-"])
        #expect(defaults.identifier == "jp=0,pp=0,we=4,ae=4,xe=7,ge=7")
        #expect(spec(.jpeg).identifier
                == "v5;box=x;fit=inside;gravity=center;crop=-;upscale=false;kernel=lanczos3;format=jpeg;q=-;"
                + "bg=#ffffffff;anim=false;enc=jp=0;sol=balanced")
    }

    @Test("Each flag is its own key, for its own format only")
    func flagsInKeys() {
        var options = EncodingOptions()
        let plain = OutputFormat.allCases.map(options.identifier(for:))
        options.jpegNoSubsampling = true
        options.webpLossless = true
        options.avifLossless = true
        options.jxlLossless = true
        let flagged = OutputFormat.allCases.map(options.identifier(for:))
        #expect(zip(plain, flagged).map { $0 != $1 } == [true, false, true, true, true, false, false])
        var near = EncodingOptions()
        near.webpNearLossless = 60
        #expect(near.identifier(for: .webp) == "we=4,wn=60" && near.identifier(for: .jpeg) == "jp=0")
        #expect(near.identifier != EncodingOptions().identifier)
    }

    @Test("--quality per format, from the command line and the column: each output gets its number; a later bare run for one format is a cache hit")
    func qualityEndToEnd() async throws {
        let space = try Workspace()
        try space.fixture(Self.artwork, "art.png")
        // Formats named: an `auto` row's key holds every format's number.
        let rows = [["art.png", "a.webp", "webp", ""], ["art.png", "a.jpg", "jpeg", ""], ["art.png", "b.webp", "webp", "webp=30"]]
        let manifest = CSV.manifest(["src", "out", "format", "quality"], rows)
        let run = try await space.run(manifest: manifest, ["--quality", "webp=90,jpeg=40"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let high = try Data(contentsOf: space.output("a.webp")), low = try Data(contentsOf: space.output("b.webp"))
        #expect(high.count > low.count, "webp 90: \(high.count) bytes, webp 30: \(low.count)")

        // The same outputs asked for with bare numbers are the same entries.
        let bare = CSV.manifest(["src", "out", "format", "quality"],
                                [["art.png", "c.webp", "webp", "90"], ["art.png", "c.jpg", "jpeg", "40"]])
        let again = try await space.run(manifest: bare)
        #expect(again.status == 0, "\(again.result.stderr)")
        #expect(again.report?.rows.map(\.cache) == ["hit", "hit"])
        #expect(try Data(contentsOf: space.output("c.webp")) == high)
        #expect(try Data(contentsOf: space.output("c.jpg")) == Data(contentsOf: space.output("a.jpg")))

        let invalid = try await space.run(manifest: manifest, ["--quality", "webp=0"])
        #expect(invalid.status == 2 && invalid.result.stderr.contains("--quality"), "\(invalid.result.stderr)")
        let badCell = try await space.run(manifest: CSV.manifest(["src", "out", "quality"], [["art.png", "d.webp", "webp=75,jpeg"]]))
        #expect(badCell.report?.row(2)?.error?.code == "invalid_row")
        #expect(badCell.report?.row(2)?.error?.message.contains("quality") == true)
    }

    /// The sampling factors of a JPEG's components (SOF0 or SOF2), as (h, v) pairs.
    static func samplingFactors(_ jpeg: Data) -> [(Int, Int)] {
        let bytes = [UInt8](jpeg)
        var at = 2
        while at + 4 < bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1], length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if marker == 0xC0 || marker == 0xC2 {
                let components = Int(bytes[at + 9])
                return (0..<components).map { index in
                    let factors = bytes[at + 11 + index * 3]
                    return (Int(factors >> 4), Int(factors & 0x0F))
                }
            }
            at += 2 + length
        }
        return []
    }

    @Test("--jpeg-subsample 444 keeps chroma whole at any quality; auto subsamples below 90")
    func jpegSubsampling() async throws {
        let space = try Workspace()
        try space.fixture(Self.artwork, "art.png")
        let manifest = CSV.manifest(["src", "out", "quality"], [["art.png", "small.jpg", "80"], ["art.png", "fine.jpg", "95"]])
        let plain = try await space.run(manifest: manifest)
        #expect(plain.status == 0, "\(plain.result.stderr)")
        #expect(Self.samplingFactors(try Data(contentsOf: space.output("small.jpg"))).first.map { [$0.0, $0.1] } == [2, 2])
        #expect(Self.samplingFactors(try Data(contentsOf: space.output("fine.jpg"))).allSatisfy { $0 == (1, 1) })
        let full = try await space.run(manifest: manifest, ["--jpeg-subsample", "444"])
        #expect(full.status == 0, "\(full.result.stderr)")
        // Quality 95 was 4:4:4 already, but its key names the flag: a miss too.
        #expect(full.report?.rows.map(\.cache) == ["miss", "miss"])
        let factors = Self.samplingFactors(try Data(contentsOf: space.output("small.jpg")))
        #expect(factors.count == 3 && factors.allSatisfy { $0 == (1, 1) }, "\(factors)")
        let invalid = try await space.run(manifest: manifest, ["--jpeg-subsample", "420"])
        #expect(invalid.status == 2 && invalid.result.stderr.contains("--jpeg-subsample"), "\(invalid.result.stderr)")
    }

    @Test("--webp-lossless keeps every pixel; --webp-near-lossless is lossless coding too; lossy by default")
    func webpLossless() async throws {
        let space = try Workspace()
        try space.fixture(Self.artwork, "art.png")
        let manifest = CSV.manifest(["src", "out", "format"], [["art.png", "a.webp", "webp"], ["art.png", "a.png", "png"]])
        let lossy = try await space.run(manifest: manifest)
        #expect(lossy.status == 0, "\(lossy.result.stderr)")
        #expect(FixtureBytes.contains(try Data(contentsOf: space.output("a.webp")), Array("VP8 ".utf8)))
        let lossless = try await space.run(manifest: manifest, ["--webp-lossless"])
        #expect(lossless.status == 0, "\(lossless.result.stderr)")
        #expect(lossless.report?.rows.map(\.cache) == ["miss", "hit"])
        let exact = try Data(contentsOf: space.output("a.webp"))
        #expect(FixtureBytes.contains(exact, Array("VP8L".utf8)))
        let webp = try space.pixels("a.webp"), png = try space.pixels("a.png")
        #expect(webp.width == png.width && webp.height == png.height)
        #expect(webp.maxDifference(from: png) == 0, "lossless WebP differs from the PNG by \(webp.maxDifference(from: png))")

        let near = try await space.run(manifest: manifest, ["--webp-near-lossless", "40"])
        #expect(near.status == 0, "\(near.result.stderr)")
        let nearBytes = try Data(contentsOf: space.output("a.webp"))
        #expect(FixtureBytes.contains(nearBytes, Array("VP8L".utf8)) && nearBytes != exact)
        let both = try await space.run(manifest: manifest, ["--webp-lossless", "--webp-near-lossless", "40"])
        #expect(both.status == 2 && both.result.stderr.contains("--webp-near-lossless"), "\(both.result.stderr)")
    }

    @Test("--avif-lossless and --jxl-lossless code without loss (AVIF after libheif's RGB to YCbCr, within 3 levels), where this libvips writes the format")
    func otherLossless() async throws {
        let space = try Workspace()
        try space.fixture(Self.artwork, "art.png")
        for (format, flag) in [(OutputFormat.avif, "--avif-lossless"), (.jxl, "--jxl-lossless")] {
            let saver = (try? VipsCapabilities.current())?.savers.first { $0.format == format }
            guard saver?.available == true, saver?.av1Encoder != false else {
                print("skipped \(flag): this libvips does not write \(format.rawValue)")
                continue
            }
            let name = "a.\(format.fileExtension)"
            let manifest = CSV.manifest(["src", "out"], [["art.png", name], ["art.png", "a.png"]])
            let lossy = try await space.run(manifest: manifest)
            #expect(lossy.status == 0, "\(lossy.result.stderr)")
            let lossyBytes = try Data(contentsOf: space.output(name))
            let lossyDifference = try space.pixels(name).maxDifference(from: space.pixels("a.png"))
            let run = try await space.run(manifest: manifest, [flag])
            #expect(run.status == 0, "\(run.result.stderr)")
            #expect(run.report?.row(2)?.cache == "miss")
            #expect(try Data(contentsOf: space.output(name)) != lossyBytes)
            let decoded = try space.pixels(name), png = try space.pixels("a.png")
            // libheif 1.15 turns RGB into YCbCr before coding, losslessly from there on: a level
            // or three of rounding. JPEG XL codes RGB itself.
            let allowed = format == .avif ? 3 : 0
            #expect(decoded.maxDifference(from: png) <= allowed, "\(flag): differs by \(decoded.maxDifference(from: png))")
            #expect(decoded.maxDifference(from: png) < lossyDifference, "\(flag): lossy differs by \(lossyDifference)")
        }
    }
}

extension PixelImage {
    /// The largest difference of any sample from `other`'s (same size and bands), or 255 when
    /// they differ in shape.
    func maxDifference(from other: PixelImage) -> Int {
        guard width == other.width, height == other.height, bands == other.bands else { return 255 }
        return zip(pixels, other.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}

/// `max_output_bytes`: the quality searched down until the output fits.
@Suite("Encoders per format: a byte budget per output")
struct OutputBudgetTests {
    /// Noise: what costs bytes at every quality.
    static let noise = RawImage(width: 160, height: 120) { x, y in
        let v = (x &* 7919 &+ y &* 104_729 &+ x * y) % 251
        return Colour(r: UInt8(v), g: UInt8((v * 3) % 256), b: UInt8((v * 7) % 256))
    }

    @Test("The search: the first quality that fits is kept; else bisection from the floor up, in at most 6 encodes; over_budget below the floor or without a quality")
    func search() throws {
        // Sizes fall with quality: 1,000 bytes at quality 100, 10 fewer per step.
        var tried: [Int] = []
        func encode(_ quality: Int) -> Data { tried.append(quality); return Data(count: 1000 - (100 - quality) * 10) }
        #expect(try ImageEncoder.fitting(1000, from: 100, floor: 40, searchable: true, encode: encode).count == 1000)
        #expect(tried == [100])
        tried = []
        let fitted = try ImageEncoder.fitting(700, from: 80, floor: 40, searchable: true, encode: encode)
        #expect(fitted.count <= 700 && tried.count <= ImageEncoder.maximumEncodes && tried.prefix(2) == [80, 40], "\(tried)")
        // Quality 70 is 700 bytes: the bisection reaches it within the encodes allowed.
        #expect(fitted.count == 700, "\(tried)")
        #expect(throws: ImagingError.overBudget(bytes: 400, limit: 300, quality: 40)) {
            try ImageEncoder.fitting(300, from: 80, floor: 40, searchable: true, encode: encode)
        }
        #expect(throws: ImagingError.overBudget(bytes: 800, limit: 300, quality: nil)) {
            try ImageEncoder.fitting(300, from: 80, floor: 40, searchable: false, encode: encode)
        }
    }

    @Test("A row with max_output_bytes fits in it, at a lower quality; the second run is a cache hit; one that cannot fit fails over_budget; other rows' keys are as they were")
    func endToEnd() async throws {
        let space = try Workspace()
        try space.fixture(Self.noise, "noise.png")
        let free = try await space.run(manifest: CSV.manifest(["src", "out"], [["noise.png", "free.webp"]]))
        #expect(free.status == 0, "\(free.result.stderr)")
        let unlimited = try #require(free.report?.row(2)?.bytes)
        // Quality 40 makes about 70% of quality 80's bytes on this noise: 90% lies between.
        let limit = unlimited * 9 / 10
        let manifest = CSV.manifest(["src", "out", "max_output_bytes"],
                                    [["noise.png", "fit.webp", String(limit)], ["noise.png", "tiny.webp", "100"],
                                     ["noise.png", "lossless.png", "1K"]])
        let run = try await space.run(manifest: manifest)
        #expect(run.status == 1, "\(run.result.stderr)")
        let fit = try #require(run.report?.row(2))
        #expect(fit.status == "written" && (fit.bytes ?? .max) <= limit && (fit.bytes ?? 0) > 0, "\(fit.bytes ?? -1) > \(limit)")
        #expect(try Data(contentsOf: space.output("fit.webp")).count == fit.bytes)
        #expect(run.report?.row(3)?.error?.code == "over_budget")
        #expect(run.report?.row(3)?.error?.message.contains("quality 40") == true, "\(run.report?.row(3)?.error?.message ?? "")")
        #expect(run.report?.row(4)?.error?.code == "over_budget")
        #expect(!FileManager.default.fileExists(atPath: space.output("tiny.webp").path))
        // Again: the fitted output is the cache's, no encode.
        let again = try await space.run(manifest: CSV.manifest(["src", "out", "max_output_bytes"],
                                                               [["noise.png", "fit2.webp", String(limit)]]))
        #expect(again.report?.row(2)?.cache == "hit")
        #expect(try Data(contentsOf: space.output("fit2.webp")) == Data(contentsOf: space.output("fit.webp")))
        // A lower floor is another recipe.
        let floor = try await space.run(manifest: CSV.manifest(["src", "out", "max_output_bytes"],
                                                               [["noise.png", "fit3.webp", String(limit)]]),
                                        ["--min-quality", "20"])
        #expect(floor.report?.row(2)?.cache == "miss")
        let invalid = try await space.run(manifest: CSV.manifest(["src", "out", "max_output_bytes"], [["noise.png", "x.webp", "lots"]]))
        #expect(invalid.report?.row(2)?.error?.code == "invalid_row")
    }
}

/// The encoder settings a row gives itself: `lossless` and `jpeg_subsample`.
@Suite("Encoders per format: a row's own settings")
struct RowEncoderColumnsTests {
    @Test("lossless and jpeg_subsample cells win over the run's flags for their row only")
    func columns() async throws {
        let space = try Workspace()
        try space.fixture(EncoderSettingsTests.artwork, "art.png")
        let manifest = CSV.manifest(["src", "out", "lossless", "jpeg_subsample"], [
            ["art.png", "photo.webp", "", ""], ["art.png", "graphic.webp", "true", ""],
            ["art.png", "photo.jpg", "", ""], ["art.png", "text.jpg", "", "444"],
            ["art.png", "reference.png", "", ""],
        ])
        let run = try await space.run(manifest: manifest)
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(FixtureBytes.contains(try Data(contentsOf: space.output("photo.webp")), Array("VP8 ".utf8)))
        #expect(FixtureBytes.contains(try Data(contentsOf: space.output("graphic.webp")), Array("VP8L".utf8)))
        #expect(try space.pixels("graphic.webp").maxDifference(from: space.pixels("reference.png")) == 0)
        #expect(EncoderSettingsTests.samplingFactors(try Data(contentsOf: space.output("photo.jpg"))).first.map { [$0.0, $0.1] } == [2, 2])
        #expect(EncoderSettingsTests.samplingFactors(try Data(contentsOf: space.output("text.jpg"))).allSatisfy { $0 == (1, 1) })
        // A false cell turns the run's flag off for its row.
        let off = try await space.run(manifest: CSV.manifest(["src", "out", "lossless"], [["art.png", "lossy.webp", "false"]]),
                                      ["--webp-lossless"])
        #expect(FixtureBytes.contains(try Data(contentsOf: space.output("lossy.webp")), Array("VP8 ".utf8)), "\(off.result.stderr)")
        let bad = try await space.run(manifest: CSV.manifest(["src", "out", "jpeg_subsample"], [["art.png", "x.jpg", "420"]]))
        #expect(bad.report?.row(2)?.error?.code == "invalid_row")
        #expect(bad.report?.row(2)?.error?.message.contains("jpeg_subsample") == true)
    }
}
