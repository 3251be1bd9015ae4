import ArgumentParser
import Foundation
import Thumbgen

/// The flow `render` and `warm` share: open the manifest and the report, run every row
/// through a pipeline, print the summary, log the run in the cache, and turn the outcome into
/// an exit status.
struct ManifestRunner {
    /// What a failed row does to the exit status.
    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case error, never
    }

    var manifest: String
    var jsonLines: Bool
    var report: String?
    /// The `--html` contact sheet's path.
    var html: String?
    var quiet: Bool
    var failOn: FailOn
    var defaults: ColumnDefaults
    /// Per-format encoder settings for every row.
    var encoding: EncodingOptions
    /// `render` or `warm`, for the cache's run log.
    var command: String

    /// Runs the manifest with `configuration`.
    func run(_ configuration: PipelineConfiguration) throws {
        let started = ContinuousClock.now
        let reader: ManifestReader
        do {
            reader = try ManifestReader(path: manifest, jsonLines: jsonLines ? true : nil)
        } catch {
            throw fail(error.description, ExitStatus.unusable)
        }
        let stream: ReportStream?
        do {
            stream = try report.map { try ReportStream(destination: URL(fileURLWithPath: $0)) }
        } catch {
            throw fail("\(report ?? ""): cannot write the report", ExitStatus.unwritable)
        }
        let sheet: ContactSheet?
        do {
            sheet = try html.map {
                try ContactSheet(destination: URL(fileURLWithPath: $0),
                                 outputDirectory: configuration.outputDirectory ?? URL(fileURLWithPath: "."))
            }
        } catch {
            throw fail("\(html ?? ""): cannot write the contact sheet", ExitStatus.unwritable)
        }
        let quiet = self.quiet
        let recorder = RunRecorder(report: stream) { result in
            if !quiet, result.status == .failed, let error = result.error {
                printError("row \(result.row): \(error.message)")
            }
            sheet?.add(result)
        }
        if configuration.cache != nil { recorder.expectCache(warm: configuration.outputDirectory == nil) }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(configuration: configuration, onResult: recorder.record)
        } catch let error as AtomicFileWriter.Failure {
            throw fail(error.description, ExitStatus.unwritable)
        } catch {
            throw fail("\(error)", ExitStatus.unusable)
        }
        let trap = SignalTrap { pipeline.cancel() }
        var parser = RowParser(defaults: defaults.values, baseDirectory: reader.baseDirectory)
        parser.encoding = encoding

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
        do {
            try sheet?.finish(summary: summary)
        } catch {
            throw fail("\(html ?? ""): cannot write the contact sheet", ExitStatus.unwritable)
        }
        if !quiet { printError(summary.line) }
        if let cache = configuration.cache, trap.receivedSignal == nil {
            RunLog(cache: cache).append(summary, command: command)
        }

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
