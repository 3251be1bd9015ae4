import Foundation
import Testing

/// `rotate`, `flip`, `fit`, `trim` and `sharpen` against sharp's own expected images
/// (`scripts/sharp-differential`), where a checkout of lovell/sharp is given in
/// `$THUMBGEN_SHARP_CHECKOUT`: its fixtures are third-party images, never part of this
/// repository, so without one the test is skipped with a message.
@Suite("Differential: sharp's expected images")
struct SharpDifferentialTests {
    /// The checkout, if `$THUMBGEN_SHARP_CHECKOUT` names one with sharp's unit tests.
    static let checkout: URL? = {
        guard let path = ProcessInfo.processInfo.environment["THUMBGEN_SHARP_CHECKOUT"], !path.isEmpty else { return nil }
        let url = URL(fileURLWithPath: path)
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("test/unit/rotate.js").path) ? url : nil
    }()

    /// The tests that fail for a known reason (docs/sharp-differential.md says which): a
    /// default thumbgen keeps on purpose, or libvips 8.14 against the 8.18 sharp was made with.
    static let knownDifferences: Set<String> = [
        "Rotation > Flip, rotate and resize ordering",
        "Trim borders > 16-bit PNG with alpha channel",
        "Resize dimensions > fastShrinkOnLoad: true does not causes image shifts",
        "Resize dimensions > fastShrinkOnLoad: false does not causes image shifts",
        "Resize fit=contain > PNG with 2 channels",
    ]

    @Test("Every mapped test passes sharp's similarity check, but the known differences",
          .enabled(if: checkout != nil, "needs a lovell/sharp checkout in $THUMBGEN_SHARP_CHECKOUT"),
          .timeLimit(.minutes(5)))
    func mappedTestsPass() async throws {
        let checkout = try #require(Self.checkout), binary = try #require(TestPaths.thumbgen)
        let work = try TemporaryDirectory("sharp-differential")
        let script = TestPaths.packageRoot.appendingPathComponent("scripts/sharp-differential/run").path
        let output = try #require(try await ToolRun.run(script, ["--sharp", checkout.path, "--thumbgen", binary.path,
                                                         "--work", work.url.path]))
        #expect(output.status == 0, "\(output.stdout)")
        let data = try Data(contentsOf: work.file("results.json"))
        let results = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let mapped = results.filter { $0["mapped"] as? Bool == true }
        #expect(mapped.count >= 568, "\(mapped.count) mapped")
        for file in ["rotate.js", "trim.js", "resize.js", "resize-cover.js", "resize-contain.js", "sharpen.js"] {
            #expect(mapped.contains { $0["file"] as? String == file && $0["status"] as? String == "pass" }, "\(file)")
        }
        let failed = mapped.filter { $0["status"] as? String == "fail" }.compactMap { $0["title"] as? String }
        #expect(Set(failed).isSubset(of: Self.knownDifferences), "\(Set(failed).subtracting(Self.knownDifferences))")
    }
}
