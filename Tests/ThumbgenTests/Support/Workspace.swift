import Foundation
import Testing
import Thumbgen

/// A scratch folder for one end-to-end test: fixtures, a manifest, `out/` and a report.
final class Workspace: @unchecked Sendable {
    let folder: TemporaryDirectory
    /// The `--out` folder.
    var out: URL { folder.file("out") }
    /// The `--report` file.
    var reportURL: URL { folder.file("report.json") }
    /// The cache every run of this workspace shares (`THUMBGEN_CACHE_DIR`).
    var cache: URL { folder.file("cache") }

    init(_ label: String = "e2e") throws {
        folder = try TemporaryDirectory(label)
    }

    /// Writes `image` as `name` (encoded as `format`) next to the manifest.
    @discardableResult
    func fixture(_ image: RawImage, _ name: String, as format: OutputFormat = .png,
                 quality: Int = 90) throws -> URL {
        try folder.write(try image.encoded(as: format, quality: quality), to: name)
    }

    /// What one run did.
    struct Run {
        var result: CLIResult
        var report: Report?
        /// The exit status, or -1 when the process did not exit normally.
        var status: Int32 { result.status ?? -1 }
    }

    /// Writes `manifest` and runs `thumbgen MANIFEST --out out --report report.json ARGS`.
    func run(manifest: String, name: String = "manifest.csv", _ arguments: [String] = [],
             environment: [String: String] = [:], timeout: Duration = .seconds(120),
             sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Run {
        let url = try folder.write(manifest, to: name)
        try? FileManager.default.removeItem(at: reportURL)
        let result = try await CLIRunner.run(
            [url.path, "--out", out.path, "--report", reportURL.path] + arguments,
            cacheDirectory: cache, environment: environment, timeout: timeout, sourceLocation: sourceLocation)
        let report = FileManager.default.fileExists(atPath: reportURL.path)
            ? try Report.read(reportURL) : nil
        return Run(result: result, report: report)
    }

    /// An output under `out/`.
    func output(_ relative: String) -> URL { out.appendingPathComponent(relative) }

    /// The pixels of an output under `out/`.
    func pixels(_ relative: String) throws -> PixelImage {
        try PixelImage.load(output(relative))
    }

    /// Every file under `out/`, hidden ones included.
    var outputFiles: [String] { TemporaryDirectory.files(under: out) }
}
