import Foundation
import Testing
import Thumbgen

/// `--timeout` bounds every stage of every row, and a timeout fails only its own row.
@Suite("End to end: stage deadlines")
struct StageTimeoutTests {
    /// Noise: nothing compresses it, so every encoder works hard on it.
    static func noise(width: Int, height: Int) -> RawImage {
        var generator = SystemRandomNumberGenerator()
        return RawImage(width: width, height: height) { _, _ in
            Colour(r: .random(in: 0...255, using: &generator), g: .random(in: 0...255, using: &generator),
                   b: .random(in: 0...255, using: &generator))
        }
    }

    @Test("An AV1 encode that ignores libvips' kill flag still ends its row at the deadline")
    func avifIgnoresKill() async throws {
        let space = try Workspace()
        try space.fixture(Self.noise(width: 1600, height: 1200), "noise.png")
        try space.fixture(RawImage.quadrants(width: 64, height: 48), "small.png")
        let rows = [["noise.png", "noise.avif"], ["small.png", "small.jpg"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows),
                                      ["--avif-effort", "9", "--timeout", "0.2", "--no-cache"],
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
        try space.fixture(Self.noise(width: 1200, height: 900), "shared.png")
        let rows = [["shared.png", "slow.avif", "", "avif"], ["shared.png", "fast.jpg", "64x48", "jpeg"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "format"], rows),
                                      ["--avif-effort", "9", "--timeout", "0.2", "--jobs", "1", "--no-cache"],
                                      timeout: .seconds(90))
        #expect(!run.result.timedOut)
        #expect(run.report?.row(2)?.error?.code == "timeout", "\(run.result.stderr)")
        #expect(run.report?.row(3)?.status == "written", "\(run.result.stderr)")
    }

    @Test("Every output format's encode is bounded by --timeout", arguments: ["jpeg", "png", "webp", "avif", "jxl", "gif", "tiff"])
    func everyEncoder(format: String) async throws {
        let space = try Workspace()
        // 24 MP of noise cannot be decoded, let alone encoded, in 10 ms.
        try space.fixture(Self.noise(width: 6000, height: 4000), "big.png", as: .png)
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "format"], [["big.png", "big", format]]),
                                      ["--timeout", "0.01", "--no-cache"], timeout: .seconds(90))
        #expect(!run.result.timedOut)
        #expect(run.report?.row(2)?.error?.code == "timeout", "\(format): \(run.result.stderr)")
        #expect(space.outputFiles.isEmpty, "\(space.outputFiles)")
    }
}
