import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen MANIFEST --out DIR`: makes every output the manifest lists.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Make the thumbnails a manifest lists (the default command).")

    /// What a failed row does to the exit status.
    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case error, never
    }

    @Argument(help: "The manifest: a CSV file with a header row, a .jsonl/.ndjson file, or - for standard input.")
    var manifest: String

    @Option(name: .long, help: "The folder outputs are written under; created if missing.")
    var out: String

    @Option(help: "Write a JSON report with one record per row to this file.")
    var report: String?

    @Option(help: "Images processed at once (default: the number of cores).")
    var jobs: Int?

    @Option(help: "libvips worker threads per image (default: 1; more helps when a few huge images dominate).")
    var threadsPerImage: Int?

    @Option(help: "Exit with status 1 when a row fails (error), or 0 all the same (never).")
    var failOn: FailOn = .error

    @Flag(help: "Read standard input as JSON Lines rather than CSV.")
    var jsonLines = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors that stop the whole run (not each failed row, nor the summary).")
    var quiet = false

    @OptionGroup(title: "Column defaults")
    var defaults: ColumnDefaults

    @OptionGroup(title: "HTTP sources")
    var fetch: FetchOptions

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let threadsPerImage, threadsPerImage < 1 {
            throw ValidationError("--threads-per-image must be at least 1")
        }
    }

    func run() throws {
        let started = ContinuousClock.now
        let reader: ManifestReader
        do {
            reader = try ManifestReader(path: manifest, jsonLines: jsonLines ? true : nil)
        } catch {
            throw fail(error.description, ExitStatus.unusable)
        }
        var configuration = PipelineConfiguration(outputDirectory: URL(fileURLWithPath: out))
        if let jobs { configuration.cpuConcurrency = jobs }
        if let threadsPerImage { configuration.threadsPerImage = threadsPerImage }
        configuration.fetch = fetch.policy
        let quiet = self.quiet
        let stream: ReportStream?
        do {
            stream = try report.map { try ReportStream(destination: URL(fileURLWithPath: $0)) }
        } catch {
            throw fail("\(report ?? ""): cannot write the report", ExitStatus.unwritable)
        }
        let recorder = RunRecorder(report: stream) { result in
            if !quiet, result.status == .failed, let error = result.error {
                printError("row \(result.row): \(error.message)")
            }
        }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(configuration: configuration, onResult: recorder.record)
        } catch let error as AtomicFileWriter.Failure {
            throw fail(error.description, ExitStatus.unwritable)
        } catch {
            throw fail("\(error)", ExitStatus.unusable)
        }
        let trap = SignalTrap { pipeline.cancel() }
        let parser = RowParser(defaults: defaults.values, baseDirectory: reader.baseDirectory)

        var manifestError: ManifestError?
        do {
            try ManifestRun.run(reader, parser: parser, pipeline: pipeline,
                                willRun: recorder.expect(line:))
        } catch {
            manifestError = error
        }

        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let summary: RunSummary
        do {
            summary = try recorder.finish(seconds: seconds)
        } catch {
            throw fail("\(report ?? ""): cannot write the report", ExitStatus.unwritable)
        }
        if !quiet { printError(summary.line) }

        switch trap.receivedSignal {
        case SIGINT: throw ExitStatus.interrupted
        case SIGTERM: throw ExitStatus.terminated
        default: break
        }
        if let manifestError { throw fail(manifestError.description, ExitStatus.unusable) }
        if summary.failed > 0 && failOn == .error { throw ExitStatus.rowFailed }
    }

    private func fail(_ message: String, _ status: ExitCode) -> ExitCode {
        printError(message)
        return status
    }
}

/// Writes one `thumbgen: ...` line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("thumbgen: \(message)\n".utf8))
}
