import Foundation
import Testing
import Thumbgen

/// Every file of the shared corpora (images, broken images, and the licences and notes beside
/// them) through the real binary in one run: nothing crashes or hangs, every row ends written
/// or failed with a code, and a failed row leaves no file.
@Suite("End to end: corpora run-through")
struct CorporaRunTests {
    static let knownCodes: Set<String> = [
        "invalid_row", "source_not_found", "source_unreadable", "unsupported_format", "decode_failed",
        "encode_failed", "output_escapes", "write_failed", "too_large", "timeout",
    ]

    /// Every corpus file but the per-folder inventories, sorted.
    static func corpusFiles(_ root: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker
        where url.lastPathComponent != "_manifest.tsv" && url.lastPathComponent != "_missing.tsv" {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    @Test("Every corpus file at 64x64: exit 0 or 1, one record per row, written or failed with a code",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"),
          .timeLimit(.minutes(12)))
    func runThrough() async throws {
        let corpora = try #require(TestPaths.corpora)
        let files = Self.corpusFiles(corpora)
        try #require(files.count > 100, "only \(files.count) files under \(corpora.path)")
        let space = try Workspace("corpora")
        let manifest = CSV.manifest(["src", "out"], files.map { [$0.path, "{row}.{ext}"] })
        let started = ContinuousClock.now
        // A hang must fail the test, not CI: the run is killed after 10 minutes.
        let run = try await space.run(manifest: manifest, ["--size", "64x64", "-q"], timeout: .seconds(600))
        let elapsed = ContinuousClock.now - started
        #expect(run.status == 0 || run.status == 1, "exit \(run.status): \(run.result.stderr.suffix(2000))")
        let report = try #require(run.report, "no report")
        #expect(report.rows.map(\.row) == Array(2..<(2 + files.count)))
        #expect(report.summary.rows == files.count)
        #expect(report.summary.written + report.summary.failed == files.count)

        var written: [String] = []
        for row in report.rows {
            switch row.status {
            case "written":
                let out = try #require(row.out, "line \(row.row) written without out")
                written.append(out)
                #expect((row.width ?? 0) <= 64 && (row.height ?? 0) <= 64 && (row.width ?? 0) >= 1,
                        "\(row.src): \(String(describing: row.width))x\(String(describing: row.height))")
            case "failed":
                let code = row.error?.code ?? "none"
                #expect(Self.knownCodes.contains(code), "\(row.src): code \(code)")
                #expect(row.error?.message.isEmpty == false, "\(row.src): no message")
                #expect(row.out == nil, "\(row.src) failed but names \(String(describing: row.out))")
            default:
                Issue.record("\(row.src): status \(row.status)")
            }
        }
        // Failed rows left nothing; nothing temporary remains.
        #expect(space.outputFiles == written.sorted())

        let codes = report.summary.errors.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print("corpora run-through: \(files.count) files, \(report.summary.written) written, "
              + "\(report.summary.failed) failed [\(codes)] in \(elapsed)")
    }
}
