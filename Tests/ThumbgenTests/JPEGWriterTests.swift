import CJPEGWriter
import CVips
import Foundation
import Testing
@testable import Thumbgen

/// `tg_jpeg_write`, the JPEG writer that evaluates on the calling thread: byte for byte what
/// libvips' jpegsave writes with thumbgen's settings, over lazy pipelines too; errors, kills
/// and the images it leaves to jpegsave.
@Suite("Imaging: the direct JPEG writer")
struct JPEGWriterTests {
    /// One libvips thread per image, as thumbgen runs (and as the writer requires).
    init() throws {
        try VipsRuntime.start()
        VipsRuntime.setThreadsPerImage(1)
    }

    /// What `vips_jpegsave_buffer` writes for `image` with thumbgen's settings.
    static func jpegsave(_ image: UnsafeMutablePointer<VipsImage>, quality: Int, progressive: Bool,
                         noSubsampling: Bool = false) throws -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard tg_jpegsave_buffer(image, &buffer, &length, Int32(quality), progressive ? 1 : 0, noSubsampling ? 1 : 0) == 0,
              let buffer else { throw FixtureError("jpegsave: \(VipsErrorBuffer.take())") }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// What `tg_jpeg_write` returns for `image`: its status, and its bytes on success.
    static func direct(_ image: UnsafeMutablePointer<VipsImage>, quality: Int,
                       progressive: Bool, noSubsampling: Bool = false) -> (status: Int32, data: Data?) {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = tg_jpeg_write(UnsafeMutableRawPointer(image), Int32(quality), progressive ? 1 : 0,
                                   noSubsampling ? 1 : 0, &buffer, &length)
        guard status == 0, let buffer else { return (status, nil) }
        defer { free(buffer) }
        return (status, Data(bytes: buffer, count: length))
    }

    /// `noise` as a libvips image of 3 bands, or of 1 (grey) when `grey`.
    static func image(width: Int, height: Int, grey: Bool) throws -> UnsafeMutablePointer<VipsImage> {
        let rgb = try StageTimeoutTests.noise(width: width, height: height).vipsImage()
        guard grey else { return rgb }
        defer { tg_unref(rgb) }
        var out: UnsafeMutablePointer<VipsImage>?
        guard tg_colourspace(rgb, &out, VIPS_INTERPRETATION_B_W) == 0, let out else {
            throw FixtureError("colourspace")
        }
        return out
    }

    @Test("Its bytes are jpegsave's, at every quality either side of 4:2:0, baseline and progressive, subsampled or 4:4:4",
          arguments: [(1, 1, false), (7, 5, false), (17, 9, false), (64, 64, false), (301, 203, false),
                      (33, 21, true), (1, 40, true)])
    func sameBytes(width: Int, height: Int, grey: Bool) throws {
        let image = try Self.image(width: width, height: height, grey: grey)
        defer { tg_unref(image) }
        for quality in [1, 50, 80, 89, 90, 100] {
            for progressive in [false, true] {
                for noSubsampling in [false, true] {
                    let expected = try Self.jpegsave(image, quality: quality, progressive: progressive,
                                                     noSubsampling: noSubsampling)
                    let written = Self.direct(image, quality: quality, progressive: progressive,
                                              noSubsampling: noSubsampling)
                    #expect(written.status == 0, "\(VipsErrorBuffer.take())")
                    #expect(written.data == expected,
                            "\(width)×\(height) grey \(grey), Q\(quality), progressive \(progressive), 4:4:4 \(noSubsampling)")
                }
            }
        }
    }

    @Test("Through a lazy pipeline (a JPEG decoded shrunk, then resized) its bytes are still jpegsave's")
    func lazyPipeline() throws {
        let folder = try TemporaryDirectory("jpeg-writer")
        let source = try folder.write(try StageTimeoutTests.noise(width: 1600, height: 1000).encoded(as: .jpeg),
                                      to: "a.jpg")
        func pipeline() throws -> VipsImageRef {
            try VipsImageRef.loadJPEG(path: source.path, shrinkFactor: 2, access: .sequential, strictness: .error)
                .resized(hscale: 0.3, vscale: 0.3, kernel: .lanczos3)
        }
        // A sequential decode serves one pass: each writer gets a pipeline of its own.
        let saved = try pipeline()
        let expected = try withExtendedLifetime(saved) { try Self.jpegsave(saved.pointer, quality: 80, progressive: false) }
        let lazy = try pipeline()
        let written = withExtendedLifetime(lazy) { Self.direct(lazy.pointer, quality: 80, progressive: false) }
        #expect(written.status == 0, "\(VipsErrorBuffer.take())")
        #expect(written.data == expected)
        #expect(lazy.width == 240 && expected.count > 1000)
    }

    @Test("A source that breaks halfway fails with libvips' message, and returns no bytes")
    func brokenSource() throws {
        let folder = try TemporaryDirectory("jpeg-writer")
        let whole = try StageTimeoutTests.noise(width: 800, height: 600).encoded(as: .jpeg)
        let source = try folder.write(FixtureBytes.truncated(whole), to: "broken.jpg")
        let image = try VipsImageRef.loadJPEG(path: source.path, shrinkFactor: 1, access: .sequential,
                                              strictness: .error)
        _ = VipsErrorBuffer.take()
        let written = withExtendedLifetime(image) { Self.direct(image.pointer, quality: 80, progressive: false) }
        #expect(written.status == -1 && written.data == nil)
        #expect(!VipsErrorBuffer.take().isEmpty)
    }

    @Test("A killed image stops before its first strip, saying so")
    func killed() throws {
        let image = try VipsImageRef(owning: Self.image(width: 200, height: 200, grey: false)).copied()
        image.kill()
        _ = VipsErrorBuffer.take()
        let written = withExtendedLifetime(image) { Self.direct(image.pointer, quality: 80, progressive: false) }
        #expect(written.status == -1 && written.data == nil)
        #expect(VipsErrorBuffer.take().contains("killed"))
    }

    @Test("It leaves to jpegsave the images it does not take: alpha, 16 bits")
    func unsupported() throws {
        let rgba = try RawImage(width: 8, height: 8, alpha: true) { _, _ in .red }.vipsImage()
        defer { tg_unref(rgba) }
        #expect(Self.direct(rgba, quality: 80, progressive: false).status == TG_JPEG_WRITER_UNSUPPORTED)
        let rgb = try Self.image(width: 8, height: 8, grey: false)
        defer { tg_unref(rgb) }
        var wide: UnsafeMutablePointer<VipsImage>?
        #expect(tg_cast_unshifted(rgb, &wide, VIPS_FORMAT_USHORT) == 0)
        let sixteen = try #require(wide)
        defer { tg_unref(sixteen) }
        #expect(Self.direct(sixteen, quality: 80, progressive: false).status == TG_JPEG_WRITER_UNSUPPORTED)
    }

    @Test("A run whose images get two libvips threads (jpegsave) writes the same bytes as the default (the writer)")
    func sameBytesThroughTheCLI() async throws {
        var outputs: [Data] = []
        for flags in [[], ["--threads-per-image", "2"]] {
            // A workspace each: its own cache, so that the second run renders too. One row per
            // source, with the defaults: a decode of its own, left lazy, as a first run has.
            let space = try Workspace("jpeg-writer")
            try space.fixture(StageTimeoutTests.noise(width: 800, height: 500), "a.jpg", as: .jpeg)
            try space.fixture(StageTimeoutTests.noise(width: 640, height: 480), "b.jpg", as: .jpeg)
            let run = try await space.run(manifest: CSV.manifest(["src", "size", "out"], [
                ["a.jpg", "256", "a-256.jpg"], ["b.jpg", "97x61", "a-97.jpg"],
            ]), flags)
            #expect(run.status == 0 && run.report?.rows.allSatisfy { $0.status == "written" } == true,
                    "\(run.result.stderr)")
            outputs.append(try Data(contentsOf: space.output("a-256.jpg")) + Data(contentsOf: space.output("a-97.jpg")))
        }
        #expect(outputs.count == 2 && outputs[0] == outputs[1] && outputs[0].count > 1000)
    }
}
