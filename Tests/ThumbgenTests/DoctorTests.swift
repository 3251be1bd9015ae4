import Foundation
import Testing
import Thumbgen

/// `thumbgen doctor`: versions, loaders and savers, the limits flags set, and the exit status
/// CI relies on.
@Suite("End to end: thumbgen doctor")
struct DoctorTests {
    /// The `--json` document as README names it (decoded independently of the command's own
    /// encoder, so that a renamed key fails here).
    struct Doctor: Decodable {
        struct Curl: Decodable {
            var version: String
            var ssl: String?
            var http2: Bool
            var zlib: Bool
        }
        struct Loader: Decodable {
            var format: String?
            var name: String
            var available: Bool
            var enabled: Bool
        }
        struct Saver: Decodable {
            var format: String
            var name: String
            var available: Bool
            var av1_encoder: Bool?
        }
        struct Limits: Decodable {
            var max_pixels: Int
            var max_frames: Int
            var max_output_size: Int
            var max_bytes: Int64
            var timeout_seconds: Double
            var decode_strictness: String
        }
        var thumbgen: String
        var libvips: String
        var libcurl: Curl
        var loaders: [Loader]
        var savers: [Saver]
        var limits: Limits

        /// The loaders thumbgen does not need.
        var others: [Loader] { loaders.filter { $0.format == nil } }
    }

    static let knownLoaders = ["jpegload", "pngload", "webpload", "gifload", "tiffload", "heifload", "jxlload"]
    static let knownSavers = ["jpegsave_buffer", "pngsave_buffer", "webpsave_buffer", "heifsave_buffer",
                              "jxlsave_buffer", "gifsave_buffer", "tiffsave_buffer"]

    /// Runs `thumbgen doctor --json ARGUMENTS`, expecting exit status 0.
    func doctor(_ arguments: [String] = [],
                sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Doctor {
        let result = try await CLIRunner.run(["doctor", "--json"] + arguments, timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Doctor.self, from: Data(result.stdout.utf8))
    }

    @Test("The versions are the ones thumbgen, libvips and libcurl report in process")
    func versions() async throws {
        let report = try await doctor()
        #expect(report.thumbgen == ThumbgenVersion.current)
        #expect(report.libvips == VipsRuntime.version)
        let curl = CurlVersion.current
        #expect(report.libcurl.version == curl.version)
        #expect(report.libcurl.ssl == curl.ssl)
        #expect(report.libcurl.http2 == curl.http2 && report.libcurl.zlib == curl.zlib)
        // Shapes, so that both sides being wrong the same way still fails.
        for version in [report.libvips, report.libcurl.version] {
            let parts = version.split(separator: ".")
            #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(version)")
        }
    }

    @Test("The seven input loaders are there and enabled; the seven savers are there")
    func knownCodecs() async throws {
        let report = try await doctor()
        #expect(report.loaders.compactMap(\.format) == ["jpeg", "png", "webp", "gif", "tiff", "heif", "jxl"])
        #expect(report.loaders.filter { $0.format != nil }.map(\.name) == Self.knownLoaders)
        for loader in report.loaders where loader.format != nil {
            #expect(loader.available && loader.enabled, "\(loader.name)")
        }
        #expect(report.savers.map(\.format) == ["jpeg", "png", "webp", "avif", "jxl", "gif", "tiff"])
        #expect(report.savers.map(\.name) == Self.knownSavers)
        #expect(report.savers.allSatisfy { $0.available })
        #expect(report.savers.first { $0.format == "avif" }?.av1_encoder == true)
        #expect(report.savers.filter { $0.av1_encoder != nil }.count == 1)
    }

    @Test("Every other loader is blocked by default; --enable-loader switches one on, and only it")
    func otherLoaders() async throws {
        let report = try await doctor()
        let names = report.others.map(\.name)
        #expect(names == names.sorted())
        #expect(Set(names).isDisjoint(with: Self.knownLoaders))
        // Variants are folded into their loader, and rawload (no sniffing) is not listed.
        #expect(!names.contains { $0.hasSuffix("_buffer") || $0.hasSuffix("_source") || $0 == "rawload" })
        for loader in report.others {
            #expect(loader.available && !loader.enabled, "\(loader.name)")
        }
        // The attack surface the block is for, whichever part of it this libvips has.
        let risky = ["svgload", "magickload", "pdfload"].filter(names.contains)
        guard let chosen = risky.first ?? names.first else { return }
        let enabled = try await doctor(["--enable-loader", chosen])
        #expect(enabled.others.filter(\.enabled).map(\.name) == [chosen])
        #expect(enabled.loaders.filter { $0.format != nil }.allSatisfy { $0.enabled })
    }

    @Test("A loader that lives in a libvips module (ImageMagick, poppler) is listed, blocked, and enabled alone by --enable-loader")
    func moduleLoaders() async throws {
        let report = try await doctor()
        let inModules = ["magickload", "pdfload", "openslideload"].filter(report.others.map(\.name).contains)
        guard let chosen = inModules.first else {
            print("skipped: this libvips has none of its loaders in modules")
            return
        }
        let enabled = try await doctor(["--enable-loader", chosen])
        #expect(enabled.others.filter(\.enabled).map(\.name) == [chosen])
        #expect(enabled.others.filter { inModules.contains($0.name) && $0.name != chosen }.allSatisfy { $0.available && !$0.enabled })
        #expect(enabled.loaders.filter { $0.format != nil }.allSatisfy { $0.enabled })
    }

    @Test("The limits are the defaults, and follow the flags a run would get")
    func limits() async throws {
        let defaults = try await doctor().limits
        let expected = ImagingLimits()
        #expect(defaults.max_pixels == expected.maxPixels && defaults.max_frames == expected.maxFrames)
        #expect(defaults.max_output_size == expected.maxOutputDimension)
        #expect(defaults.max_bytes == expected.maxInputBytes && defaults.timeout_seconds == expected.seconds)
        #expect(defaults.decode_strictness == expected.strictness.rawValue)

        let flagged = try await doctor([
            "--max-pixels", "1000", "--max-frames", "7", "--decode-strictness", "warning", "--timeout", "5",
            "--max-output-size", "300", "--max-bytes", "2048",
        ]).limits
        #expect(flagged.max_pixels == 1000 && flagged.max_frames == 7 && flagged.max_output_size == 300)
        #expect(flagged.max_bytes == 2048 && flagged.timeout_seconds == 5)
        #expect(flagged.decode_strictness == "warning")
    }

    @Test("The text names every section, every needed loader and saver, and the limits in force")
    func text() async throws {
        let result = try await CLIRunner.run(["doctor", "--max-frames", "7", "--timeout", "5"],
                                             timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout
        for heading in ["thumbgen", "libvips", "libcurl", "HTTP/2", "input formats:", "other loaders",
                        "output formats:", "limits:", "max pixels", "max output size", "max bytes",
                        "decode strictness"] {
            #expect(text.contains(heading), "\(heading) in \(text)")
        }
        for name in Self.knownLoaders + Self.knownSavers {
            #expect(text.contains(name), "\(name)")
        }
        let lines = text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("max frames 7") && lines.contains("timeout 5 s"), "\(text)")
        #expect(lines.contains("jpeg jpegload yes yes"), "\(text)")
    }

    @Test("--enable-loader with a loader libvips lacks exits 2, naming it")
    func unknownLoader() async throws {
        let result = try await CLIRunner.run(["doctor", "--enable-loader", "nosuchload"], timeout: .seconds(60))
        #expect(result.status == 2)
        #expect(result.stderr.contains("nosuchload"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("A missing loader or saver exits 1 and is named on standard error, the report still printed")
    func missingCodecs() async throws {
        // libvips finds its HEIF and JPEG XL modules (where it is built with them as modules,
        // as Debian's is) under VIPSHOME; pointing it elsewhere takes them away.
        let result = try await run(["doctor", "--json"], environment: ["VIPSHOME": "/nonexistent"])
        let report = try JSONDecoder().decode(Doctor.self, from: Data(result.stdout.utf8))
        let missing = report.loaders.filter { $0.format != nil && !$0.available }.map(\.name)
            + report.savers.filter { !$0.available || $0.av1_encoder == false }.map(\.name)
        #expect(result.status == (missing.isEmpty ? 0 : 1), "\(result.stderr)")
        for name in missing {
            #expect(result.stderr.contains(name), "\(name) in \(result.stderr)")
        }
    }

    /// Runs the binary with extra environment variables, which `CLIRunner` does not take.
    private func run(_ arguments: [String], environment: [String: String]) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let binary = try #require(TestPaths.thumbgen)
        let scratch = try TemporaryDirectory("doctor")
        let out = try scratch.write("", to: "stdout"), err = try scratch.write("", to: "stderr")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: out, encoding: .utf8),
                try String(contentsOf: err, encoding: .utf8))
    }
}
