import Foundation
import Testing
import Thumbgen

/// Hostile and broken input is harmless: limits checked from the header, damaged data a row
/// error, unknown loaders off, a runaway encode stopped; the other rows are still written.
@Suite("End to end: limits and damaged input")
struct ImageLimitsTests {
    static func corpus(_ relative: String) throws -> String {
        try #require(TestPaths.corpora).appendingPathComponent(relative).path
    }

    @Test("lottapixel.jpg (64250×64250 declared) fails with too_large from its header; uber.gif keeps one frame",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func decompressionBombs() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 40, height: 40), "ok.png")
        let lotta = try Self.corpus("fuzzdb/attack/file-upload/malicious-images/lottapixel.jpg")
        let uber = try Self.corpus("fuzzdb/attack/file-upload/malicious-images/uber.gif")
        let rows = [
            [lotta, "lotta.jpg", ""], [uber, "uber-all.gif", "true"], [uber, "uber-first.gif", ""],
            ["ok.png", "ok.png", ""],
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "animated"], rows),
                                      ["--size", "64x64"])
        #expect(run.status == 1, "\(run.result.stderr)")
        let report = try #require(run.report)
        let lottaRow = try #require(report.row(2))
        #expect(lottaRow.error?.code == "too_large")
        #expect(lottaRow.error?.message.contains("64250×64250") == true)
        #expect(lottaRow.error?.message.contains("--max-pixels") == true)
        // 4,097 frames is over the default frame limit (500) when every frame is asked for…
        let all = try #require(report.row(3))
        #expect(all.error?.code == "too_large" && all.error?.message.contains("--max-frames") == true,
                "\(String(describing: all.error))")
        // …and harmless when only the first frame is read (the default).
        #expect(report.row(4)?.status == "written")
        let first = try ImageFacts.read(space.output("uber-first.gif"))
        #expect(first.frames == 1 && first.loader == "gifload", "\(first)")
        #expect(report.row(5)?.status == "written")
        #expect(space.outputFiles == ["ok.png", "uber-first.gif"])
    }

    @Test("--max-pixels, --max-bytes and --max-output-size fail only the rows over them")
    func flagLimits() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 300, height: 200), "big.png")
        try space.fixture(.quadrants(width: 100, height: 100), "small.png")
        let bigBytes = try Data(contentsOf: space.folder.file("big.png")).count
        let rows = [
            ["big.png", "big.png", ""], ["small.png", "small.png", ""],
            ["small.png", "huge.png", "2000x2000"],
        ]
        let manifest = CSV.manifest(["src", "out", "size"], rows)
        // 300×200 = 60,000 pixels; 100×100 = 10,000.
        let run = try await space.run(manifest: manifest, [
            "--max-pixels", "50000", "--max-output-size", "1000", "--upscale", "--size", "80x80",
        ])
        #expect(run.status == 1)
        let report = try #require(run.report)
        #expect(report.row(2)?.error?.code == "too_large")
        #expect(report.row(2)?.error?.message.contains("300×200") == true)
        #expect(report.row(3)?.status == "written")
        #expect(report.row(4)?.error?.code == "too_large")
        #expect(report.row(4)?.error?.message.contains("--max-output-size") == true)

        let bytesRun = try await space.run(manifest: manifest, [
            "--max-bytes", String(bigBytes - 1), "--size", "80x80",
        ])
        let bytesReport = try #require(bytesRun.report)
        #expect(bytesReport.row(2)?.error?.code == "too_large")
        #expect(bytesReport.row(2)?.error?.message.contains("--max-bytes") == true)
        #expect(bytesReport.row(3)?.status != "failed")
        #expect(bytesReport.row(4)?.status == "written")
        // Without the output limit, the row's own size wins over --size, and a source is not
        // enlarged without --upscale.
        #expect(try ImageFacts.read(space.output("huge.png")).width == 100)
    }

    @Test("Truncated JPEG, PNG and GIF fail with decode_failed; grey fill only with --decode-strictness none",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func truncated() async throws {
        let space = try Workspace()
        let files = [
            "wuffs/test/data/peacock.default.truncated.jpeg",
            "wuffs/test/data/peacock.progressive.truncated.jpeg",
            "pillow/Tests/images/truncated_jpeg.jpg",
            "wuffs/test/data/hippopotamus.regular.truncated.png",
            "pillow/Tests/images/truncated_image.png",
            "wuffs/test/data/hippopotamus.interlaced.truncated.gif",
            // A broken compressed stream that libvips reads as black under fail_on=truncated.
            "libpng/contrib/testpngs/crashers/huge_IDAT.png",
        ]
        let rows = try files.enumerated().map { [try Self.corpus($1), "\($0).png"] }
        let strict = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "64"])
        let report = try #require(strict.report)
        for (index, file) in files.enumerated() {
            #expect(report.row(index + 2)?.error?.code == "decode_failed", "\(file)")
        }
        #expect(space.outputFiles.isEmpty)

        // Opting in to grey fill writes the peacock, whose missing part is flat grey.
        let lenient = try await space.run(manifest: CSV.manifest(["src", "out"], [rows[0]]),
                                          ["--size", "64", "--decode-strictness", "none"])
        #expect(lenient.report?.row(2)?.status == "written", "\(lenient.result.stderr)")
        let image = try space.pixels("0.png")
        #expect(image.pixel(image.width / 2, image.height - 1, is: Colour(r: 128, g: 128, b: 128), tolerance: 6),
                "\(image.pixel(image.width / 2, image.height - 1))")
    }

    @Test("PNGs declaring 1 GiB metadata chunks in 57 bytes fail before libpng allocates them",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func hugeChunks() async throws {
        let space = try Workspace()
        let chunks = ["iCCP", "tEXt", "zTXt", "iTXt", "eXIf", "pCAL", "sPLT", "juNK_unsafe_to_copy"]
        let rows = try chunks.map {
            [try Self.corpus("libpng/contrib/testpngs/crashers/huge_\($0.count == 4 ? "\($0)_chunk" : $0).png"), "\($0).png"]
        }
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "32"])
        let report = try #require(run.report)
        for (index, chunk) in chunks.enumerated() {
            let row = try #require(report.row(index + 2))
            #expect(row.error?.code == "decode_failed", "\(chunk): \(String(describing: row.error))")
            #expect(row.error?.message.contains("declares 1073741823 bytes") == true, "\(chunk)")
        }
        #expect(space.outputFiles.isEmpty)
    }

    @Test("Stray bytes before a JPEG marker pass by default and fail with --decode-strictness warning",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func warningStrictness() async throws {
        let space = try Workspace()
        let source = try Self.corpus("pillow/Tests/images/jpeg_ff00_header.jpg")
        let manifest = CSV.manifest(["src", "out"], [[source, "a.jpg"]])
        let lenient = try await space.run(manifest: manifest, ["--size", "32"])
        #expect(lenient.report?.row(2)?.status == "written")
        let strict = try await space.run(manifest: manifest, ["--size", "32", "--decode-strictness", "warning"])
        #expect(strict.report?.row(2)?.error?.code == "decode_failed")
        #expect(strict.report?.row(2)?.error?.message.contains("extraneous bytes") == true)
    }

    @Test("SVG, PPM and libvips' own format are not read unless their loader is enabled")
    func loadersOff() async throws {
        let space = try Workspace()
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#ff0000"/></svg>"##
        _ = try space.folder.write(svg, to: "a.svg")
        _ = try space.folder.write("P3\n2 2\n255\n255 0 0 255 0 0 255 0 0 255 0 0\n", to: "b.ppm")
        let rows = [["a.svg", "a.png"], ["b.ppm", "b.png"]]
        let manifest = CSV.manifest(["src", "out"], rows)
        let run = try await space.run(manifest: manifest)
        let report = try #require(run.report)
        #expect(report.row(2)?.error?.code == "unsupported_format")
        #expect(report.row(3)?.error?.code == "unsupported_format")

        let enabled = try await space.run(manifest: manifest, ["--enable-loader", "svgload"])
        #expect(enabled.report?.row(2)?.status == "written", "\(enabled.result.stderr)")
        #expect(enabled.report?.row(3)?.error?.code == "unsupported_format")
        let image = try space.pixels("a.png")
        #expect(image.width == 40 && image.height == 20)
        #expect(image.pixel(20, 10, is: Colour(r: 255, g: 0, b: 0)), "\(image.pixel(20, 10))")

        let unknown = try await space.run(manifest: manifest, ["--enable-loader", "nosuchload"])
        #expect(unknown.status == 2)
        #expect(unknown.result.stderr.contains("nosuchload"))
    }

    @Test("An encode that runs past --timeout fails its row with timeout; the run goes on")
    func encodeTimeout() async throws {
        let space = try Workspace()
        // 6000×6000 at full size through a slow kernel and AVIF: seconds of work on any machine,
        // against a limit of a tenth of a second.
        let big = RawImage(width: 600, height: 600) { x, y in
            Colour(r: UInt8(x % 256), g: UInt8(y % 256), b: UInt8((x * y) % 256))
        }
        // Seconds of encoding: made off the concurrency pool (see OffPool).
        let png = try await OffPool.run { try big.scaledPNG(by: 10) }
        _ = try space.folder.write(png, to: "big.png")
        try space.fixture(.quadrants(width: 8, height: 8), "small.png")
        let rows = [["big.png", "big.avif", "6000x6000"], ["small.png", "small.png", "8x8"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size"], rows),
                                      ["--timeout", "0.1", "--jobs", "1"])
        #expect(run.status == 1, "\(run.result.stderr)")
        let report = try #require(run.report)
        #expect(report.row(2)?.error?.code == "timeout", "\(String(describing: report.row(2)))")
        #expect(report.row(2)?.error?.message.contains("--timeout") == true)
        #expect(report.row(3)?.status == "written")
        #expect(space.outputFiles == ["small.png"])
    }
}
