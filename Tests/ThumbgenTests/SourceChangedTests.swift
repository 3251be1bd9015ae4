import Foundation
import Testing
import Thumbgen

/// A local source rewritten between its hashing and its decoding never has its new pixels
/// cached under its old digest.
@Suite("Cache: a source rewritten while it is read")
struct SourceChangedTests {
    @Test("A file rewritten after hashing fails its row, and the old content later gets its own pixels")
    func rewrittenAfterHashing() async throws {
        let space = try Workspace()
        let original = try RawImage.quadrants(width: 64, height: 48).encoded(as: .png)
        let rewritten = try RawImage.quadrants(width: 64, height: 48, [.blue, .blue, .blue, .blue]).encoded(as: .png)
        let source = try space.folder.write(original, to: "photo.png")
        // Last changed a minute ago, so that the cache records its stamp once it is hashed: the
        // record's appearance tells the test that hashing is done.
        let past = Date().addingTimeInterval(-60)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: source.path)
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], [["photo.png", "out.png"]]), to: "m.csv")
        // The pause after hashing is the window the rewrite lands in.
        let runner = try CLIRunner([manifest.path, "--out", space.out.path, "--report", space.reportURL.path],
                                   cacheDirectory: space.cache,
                                   environment: ["THUMBGEN_FAULT_PAUSE_AFTER_HASH": "4"])
        try runner.start()
        // Rewritten from the watching thread the moment the record appears: a busy concurrency
        // pool could resume this test only after the window has closed.
        let hashed = try await OffPool.run { () -> Bool in
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if !CacheFiles(root: space.cache).entries("files").isEmpty {
                    try rewritten.write(to: source)
                    return true
                }
                usleep(10_000)
            }
            return false
        }
        try #require(hashed, "the source was never hashed")
        let result = await runner.wait(timeout: .seconds(60))
        let report = try Report.read(space.reportURL)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(report.row(2)?.error?.code == "source_unreadable", "\(String(describing: report.row(2)))")
        #expect(report.row(2)?.error?.message.contains("changed while it was being read") == true)

        // The original bytes again: whatever the cache holds for their digest is their picture.
        try original.write(to: source)
        let again = try await space.run(manifest: CSV.manifest(["src", "out"], [["photo.png", "out.png"]]))
        #expect(again.status == 0, "\(again.result.stderr)")
        let pixels = try space.pixels("out.png")
        #expect(pixels.pixel(4, 4, is: .red), "\(pixels.pixel(4, 4))")
    }
}
