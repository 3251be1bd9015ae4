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
    /// The `--events` log's path (`-`: standard output).
    var events: String?
    var quiet: Bool
    /// `-v`: a line for every row.
    var verbose: Bool
    /// How progress is shown.
    var progress: ProgressDisplay.Style
    var failOn: FailOn
    /// The column defaults and encoder flags every row gets.
    var recipe: RecipeOptions
    /// `render` or `warm`, for the cache's run log.
    var command: String

    /// Runs the manifest with `configuration`; `dryRun` only plans it.
    func run(_ configuration: PipelineConfiguration, dryRun: Bool = false) throws {
        let started = ContinuousClock.now
        // First of all: a signal from here on stops the run (the reader too, should standard
        // input stay open and silent), and cancels the pipeline once it exists.
        let trap = SignalTrap.shared
        trap.listen()
        let stop = trap.stop
        let reader: ManifestReader
        do {
            reader = try ManifestReader(path: manifest, jsonLines: jsonLines ? true : nil, stop: stop)
        } catch {
            // A signal while the header was awaited ends the run as interrupted, not as a bad
            // manifest.
            switch trap.receivedSignal {
            case SIGINT: throw ExitStatus.interrupted
            case SIGTERM: throw ExitStatus.terminated
            default: throw fail(error.description, ExitStatus.unusable)
            }
        }
        let outputs = try RunSinks(self, outputDirectory: configuration.outputDirectory, started: started)
        let recorder = outputs.recorder
        if !jsonLines && manifest != "-" { countRows(into: outputs.progress) }
        var configuration = configuration
        if let events = outputs.events { configuration.onEvent = { events.log($0) } }
        if configuration.cache != nil { recorder.expectCache(warm: configuration.outputDirectory == nil) }
        let pipeline: any RowSink
        if dryRun {
            pipeline = DryRun(configuration: configuration, onResult: recorder.record)
        } else {
            do {
                pipeline = try Pipeline(configuration: configuration, onResult: recorder.record)
            } catch let error as AtomicFileWriter.Failure {
                throw fail(error.description, ExitStatus.unwritable)
            } catch {
                throw fail("\(error)", ExitStatus.unusable)
            }
        }
        let parser = recipe.parser(baseDirectory: reader.baseDirectory)

        var manifestError: ManifestError?
        do {
            try stop.whileRegistered({ [pipeline] in pipeline.cancel() }) { () throws(ManifestError) in
                try ManifestFeed.run(reader, parser: parser, pipeline: pipeline,
                                    willRun: recorder.expect(line:))
            }
        } catch {
            manifestError = error
        }

        let seconds = (ContinuousClock.now - started).inSeconds
        let summary = try outputs.finish(seconds: seconds, reportPath: report)
        if !quiet { printError(summary.line) }
        if !dryRun, let cache = configuration.cache, trap.receivedSignal == nil {
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

    /// Counts the manifest's rows on a thread of its own, so that the progress line can show a
    /// total and a time left while the run reads the same file.
    /// Only a regular file is read twice: a pipe (`<(...)`, a FIFO) would lose to this reader
    /// the rows the run needs.
    private func countRows(into progress: ProgressDisplay) {
        var info = stat()
        guard progress.isShown, stat(manifest, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        let path = manifest
        Thread.detachNewThread {
            guard let reader = try? ManifestReader(path: path) else { return }
            var count = 0
            while let entry = try? reader.next() {
                _ = entry
                count += 1
            }
            progress.setTotal(count)
        }
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
