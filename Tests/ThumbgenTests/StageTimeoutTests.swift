import Foundation
import Testing
import Thumbgen

/// `--timeout` bounds every stage of every row, and a timeout fails only its own row.
@Suite("End to end: stage deadlines")
struct StageTimeoutTests {
    /// Noise: nothing compresses it, so every encoder works hard on it. Made from a xorshift
    /// generator a word at a time: building millions of pixels one closure call each would
    /// hold a concurrency-pool thread for seconds and starve other suites' awaits.
    static func noise(width: Int, height: Int) -> RawImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        pixels.withUnsafeMutableBytes { bytes in
            let words = bytes.bindMemory(to: UInt64.self)
            for index in words.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
        }
        return RawImage(width: width, height: height, bands: 3, pixels: pixels)
    }

    /// Writes `image` as a PNG fixture off the concurrency pool (encoding noise takes a while).
    static func write(_ image: RawImage, _ name: String, in space: Workspace) async throws {
        try await OffPool.run { _ = try space.fixture(image, name) }
    }

    @Test("An AV1 encode that ignores libvips' kill flag still ends its row at the deadline")
    func avifIgnoresKill() async throws {
        let space = try Workspace()
        try await Self.write(Self.noise(width: 1600, height: 1200), "noise.png", in: space)
        try space.fixture(RawImage.quadrants(width: 64, height: 48), "small.png")
        let rows = [["noise.png", "noise.avif"], ["small.png", "small.jpg"]]
        // One second: far below the AV1 encode (tens of seconds on these 1.9 MP), and far above
        // the small row's stages even on a loaded machine (at 0.2 s it timed out while other
        // suites ran AV1 encodes beside it).
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows),
                                      ["--avif-effort", "9", "--timeout", "1", "--no-cache"],
                                      timeout: .seconds(90))
        #expect(!run.result.timedOut)
        let failed = run.report?.row(2)
        #expect(failed?.status == "failed" && failed?.error?.code == "timeout", "\(String(describing: failed))")
        #expect(failed?.error?.message.contains("(--timeout)") == true)
        #expect(run.report?.row(3)?.status == "written")
        #expect(!FileManager.default.fileExists(atPath: space.output("noise.avif").path))
    }

    @Test("A timeout kills only its own row's work, never the decoded image other rows share")
    func timeoutStaysInItsRow() async throws {
        let space = try Workspace()
        // Both rows read one in-memory decode; the first writes it unchanged (same size, no
        // crop) as a slow AVIF, so on the old code its kill landed on the shared image.
        // The shared decode takes milliseconds, far inside the limit even on a loaded machine;
        // AV1 at effort 9 takes seconds on these 0.17 MP (6.5 s on an idle core). With one
        // job, the second row renders once that encode returns: an encode ten times longer
        // (0.5 MP on a loaded machine) could outlast the test's bound.
        try await Self.write(Self.noise(width: 480, height: 360), "shared.png", in: space)
        let rows = [["shared.png", "slow.avif", "", "avif"], ["shared.png", "fast.jpg", "64x48", "jpeg"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "format"], rows),
                                      ["--avif-effort", "9", "--timeout", "1", "--jobs", "1", "--no-cache"],
                                      timeout: .seconds(90))
        #expect(!run.result.timedOut)
        #expect(run.report?.row(2)?.error?.code == "timeout", "\(run.result.stderr)")
        #expect(run.report?.row(3)?.status == "written", "\(run.result.stderr)")
    }

    @Test("Every output format's encode is bounded by --timeout", arguments: ["jpeg", "png", "webp", "avif", "jxl", "gif", "tiff"])
    func everyEncoder(format: String) async throws {
        let space = try Workspace()
        // 6 MP of noise cannot be decoded, let alone scaled and encoded, in 10 ms (nor in the
        // 20 ms the deadline may be noticed late); the size keeps a PNG from passing through.
        try await Self.write(Self.noise(width: 3000, height: 2000), "big.png", in: space)
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "format"], [["big.png", "big", format]]),
                                      ["--timeout", "0.01", "--size", "1500x1500", "--no-cache"],
                                      timeout: .seconds(90))
        #expect(!run.result.timedOut)
        #expect(run.report?.row(2)?.error?.code == "timeout", "\(format): \(run.result.stderr)")
        #expect(space.outputFiles.isEmpty, "\(space.outputFiles)")
    }

    @Test("Smart crop's analysis is under --timeout too", arguments: ["attention", "entropy"])
    func smartCropBounded(gravity: String) async throws {
        let space = try Workspace()
        try await Self.write(Self.noise(width: 3000, height: 2000), "big.png", in: space)
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "gravity"], [["big.png", "big.png", gravity]]),
                                      ["--timeout", "0.01", "--fit", "cover", "--size", "1400x1400", "--no-cache"],
                                      timeout: .seconds(90))
        #expect(!run.result.timedOut)
        #expect(run.report?.row(2)?.error?.code == "timeout", "\(run.result.stderr)")
        #expect(space.outputFiles.isEmpty, "\(space.outputFiles)")
    }

    @Test("SIGTERM during an AV1 encode that ignores the kill flag still ends the run, with its report")
    func signalDuringUnkillableEncode() async throws {
        let space = try Workspace()
        try await Self.write(Self.noise(width: 2000, height: 1500), "noise.png", in: space)
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], [["noise.png", "noise.avif"]]), to: "m.csv")
        let events = space.folder.file("events.jsonl")
        let runner = try CLIRunner([manifest.path, "--out", space.out.path, "--report", space.reportURL.path,
                                    "--events", events.path, "--avif-effort", "9", "--timeout", "600", "--no-cache"])
        try runner.start()
        // Once the row's source is loaded, the PNG decodes in well under a second; from then on
        // libaom holds the thread (for minutes). Watched off the concurrency pool (see OffPool):
        // on a loaded CI box a pool-thread wake-up came so late that the encode had ended.
        try await OffPool.run {
            let deadline = ContinuousClock.now + .seconds(90)
            while runner.isRunning, ContinuousClock.now < deadline,
                  !((try? String(contentsOf: events, encoding: .utf8)) ?? "").contains("loaded") {
                usleep(50_000)
            }
            usleep(1_000_000)
        }
        try #require(runner.isRunning, "the encode ended before the signal")
        runner.send(SIGTERM)
        // Far less than the encode's minutes, far more than the second the run allows itself.
        let result = await runner.wait(timeout: .seconds(15))
        #expect(result.status == 143, "\(result.stderr)")
        let report = try #require(try? Report.read(space.reportURL), "no report was written")
        #expect(report.row(2)?.status == "cancelled")
    }
}

extension RawImage {
    /// Pixels made elsewhere, `bands` values each.
    init(width: Int, height: Int, bands: Int, pixels: [UInt8]) {
        self.width = width; self.height = height; self.bands = bands; self.pixels = pixels
    }
}
