import Foundation
import Testing

/// A cache that stops taking writes during a run (here: a 256 KiB tmpfs that fills): the run
/// says so once on standard error and in its summary, and writes every output all the same.
/// Mounting needs root; elsewhere the test is skipped, saying why.
@Suite("Cache: a full file system")
struct CacheFullTests {
    /// Whether this process may mount a tmpfs (root, in a namespace that allows it).
    static let canMount: Bool = {
        guard getuid() == 0, let folder = try? TemporaryDirectory("mount-probe") else { return false }
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder.url.path]) else { return false }
        return run("/bin/umount", [folder.url.path])
    }()

    /// Runs `tool` with `arguments`; whether it exited 0.
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// `count` PNGs of 300×200 noise (about 180 KB each: PNG cannot shrink noise), `prefix0.png`
    /// and on, in the workspace's folder.
    static func writeNoise(_ count: Int, named prefix: String, in space: Workspace, seed start: UInt64) throws {
        var seed = start
        func next() -> UInt8 {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            return UInt8(truncatingIfNeeded: seed)
        }
        for index in 0..<count {
            let image = RawImage(width: 300, height: 200) { _, _ in Colour(r: next(), g: next(), b: next()) }
            try space.folder.write(try image.encoded(as: .png), to: "\(prefix)\(index).png")
        }
    }

    /// Mounts a 256 KiB tmpfs as the workspace's cache; the caller unmounts it.
    static func mountSmallCache(_ space: Workspace) throws {
        try FileManager.default.createDirectory(at: space.cache, withIntermediateDirectories: true)
        #expect(run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", space.cache.path]))
    }

    @Test("A cache that fills mid-run: one warning, every output written, the refused writes counted",
          .enabled(if: canMount, "needs root to mount a small tmpfs for the cache"))
    func cacheFills() async throws {
        let space = try Workspace("cache-full")
        // Noise, so that each output is large (PNG cannot shrink it): a few fill the cache.
        try Self.writeNoise(8, named: "n", in: space, seed: 0x9e3779b97f4a7c15)
        try Self.mountSmallCache(space)
        defer { _ = Self.run("/bin/umount", ["-l", space.cache.path]) }

        let rows = (0..<8).map { ["n\($0).png", "300", "{name}.png"] }
        let run = try await space.run(manifest: CSV.manifest(["src", "size", "out"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        #expect(report.rows.map(\.status) == Array(repeating: "written", count: 8))
        for index in 0..<8 {
            #expect(try space.pixels("n\(index).png").width == 300)
        }
        let warnings = run.result.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1 && warnings.first?.contains("stopped taking writes") == true,
                "\(run.result.stderr)")
        #expect((report.summary.cache?["not_stored"] ?? 0) > 0, "\(String(describing: report.summary.cache))")
        #expect(run.result.stderr.contains("writes refused"), "\(run.result.stderr)")
    }

    @Test("URL sources into a full cache: each body is downloaded outside the cache instead, every row written",
          .enabled(if: canMount, "needs root to mount a small tmpfs for the cache"))
    func urlSourcesIntoAFullCache() async throws {
        let space = try Workspace("cache-full-url")
        // Bodies of about 180 KB: the second one no longer fits in the 256 KiB cache.
        try Self.writeNoise(6, named: "u", in: space, seed: 0x2545f4914f6cdd1d)
        let server = try FaultServer(root: space.folder.url)
        try Self.mountSmallCache(space)
        defer { _ = Self.run("/bin/umount", ["-l", space.cache.path]) }

        let rows = (0..<6).map { [server.url("/img/u\($0).png"), "64", "u\($0).png"] }
        let run = try await space.run(manifest: CSV.manifest(["src", "size", "out"], rows),
                                      ["--allow-private-network"])
        #expect(run.status == 0, "\(run.result.stderr)")
        let report = try #require(run.report)
        #expect(report.rows.map(\.status) == Array(repeating: "written", count: 6), "\(run.result.stderr)")
        for index in 0..<6 {
            #expect(try space.pixels("u\(index).png").width == 64)
        }
        #expect((report.summary.cache?["not_stored"] ?? 0) > 0, "\(String(describing: report.summary.cache)) \(run.result.stderr)")
    }
}
