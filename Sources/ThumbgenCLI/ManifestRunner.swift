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

    /// What a run reads.
    enum Input {
        /// A manifest file, or `-` for standard input.
        case manifest(String)
        /// The rows of a walk over folders, globs and image files, and a second walk of the
        /// same paths that only counts them (for the progress line's total).
        case tree(TreeManifest, counting: TreeManifest)
        /// Rows made in memory (`thumbgen site`'s), `count` of them.
        case rows(any RecordSource, count: Int)
    }

    var input: Input
    var jsonLines: Bool
    var report: String?
    /// The `--index` file's path.
    var index: String?
    /// What the index puts before each output's path in URLs.
    var indexURLPrefix: String?
    /// The `sizes` of the index's markup (`--sizes`).
    var sizes: String?
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
    /// `--shard`: the only rows run are this shard's (nil: every row).
    var shard: Shard?
    /// `--prune`: remove what earlier runs placed under `--out` and this one did not.
    var prune = false
    /// Hears every row's result as the report does (`thumbgen site` rewrites pages from them).
    var onResults: (@Sendable ([RowResult]) -> Void)?
    /// Called once every row has finished, before the report is closed: what it returns is
    /// the report's `pages` section (`thumbgen site` rewrites its pages here).
    var beforeFinish: (() throws -> [SitePageReport]?)?

    /// Runs the manifest with `configuration`; `dryRun` only plans it.
    func run(_ configuration: PipelineConfiguration, dryRun: Bool = false) throws {
        let started = ContinuousClock.now
        // First of all: a signal from here on stops the run (the reader too, should standard
        // input stay open and silent), and cancels the pipeline once it exists.
        let trap = SignalTrap.shared
        trap.listen()
        let stop = trap.stop
        let reader: any RecordSource
        var file: ManifestReader?
        do {
            switch input {
            case .manifest(let manifest):
                let keeps = shard.map { shard in { (src: String?) in shard.owns(src: src) } }
                let opened = try ManifestReader(path: manifest, jsonLines: jsonLines ? true : nil, stop: stop,
                                                hashing: shard != nil, bySource: true, keeps: keeps)
                file = opened
                // Rows naming a preset of the thumbgen.toml get its settings in their empty cells.
                reader = PresetExpansion(manifest == "-" ? SourceWindow(opened) : opened,
                                         presets: ConfigArguments.loaded.withLock { $0.presets })
            case .tree(let tree, _):
                tree.hashing = shard != nil
                reader = tree
            case .rows(let rows, _):
                reader = rows
            }
        } catch {
            // A signal while the header was awaited ends the run as interrupted, not as a bad
            // manifest.
            switch trap.receivedSignal {
            case SIGINT: throw ExitStatus.interrupted
            case SIGTERM: throw ExitStatus.terminated
            default: throw fail(error.description, ExitStatus.unusable)
            }
        }
        // What the run places under --out, for its record (and what a dry run would, to list
        // what --prune would remove).
        let ledger = configuration.outputDirectory != nil && (!dryRun || prune) ? PlacedLedger(dryRun: dryRun) : nil
        // Whether --out holds files before this run places any: with no record of earlier runs,
        // --prune says it could not tell theirs.
        let heldFiles = prune && (configuration.outputDirectory.map { OutputPruner.holdsFiles(in: $0) } ?? false)
        let outputs = try RunSinks(self, outputDirectory: configuration.outputDirectory, started: started,
                                   ledger: ledger)
        let recorder = outputs.recorder
        if manifestIsFile(), let count = file?.recordCount {
            // The first pass over the file counted them (this shard's only).
            if outputs.progress.isShown { outputs.progress.setTotal(count) }
        }
        if case .tree(_, let counting) = input { countRows(of: counting, into: outputs.progress) }
        if case .rows(_, let count) = input, outputs.progress.isShown { outputs.progress.setTotal(count) }
        var configuration = configuration
        if let events = outputs.events { configuration.onEvent = { events.log($0) } }
        // The record of placed files: every run that writes under --out keeps it (a dry run
        // reads it only to list what --prune would remove).
        let made = MadeFolders()
        if !dryRun { configuration.madeFolders = made }
        if configuration.cache != nil { recorder.expectCache(warm: configuration.outputDirectory == nil) }
        let pipeline: any RowExecutor
        if dryRun {
            pipeline = DryRun(configuration: configuration, onResult: recorder.record)
        } else {
            do {
                let record: @Sendable ([RowResult]) -> Void = recorder.record
                var heard = record
                if let hear = onResults {
                    heard = { results in
                        record(results)
                        hear(results)
                    }
                }
                pipeline = try Pipeline(configuration: configuration, onResults: heard)
            } catch let error as AtomicFileWriter.Failure {
                throw fail(error.description, ExitStatus.unwritable)
            } catch {
                throw fail("\(error)", ExitStatus.unusable)
            }
        }
        let parser = recipe.parser(baseDirectory: reader.baseDirectory)
        // A manifest's reader returns this shard's records only (`keeps`); a walk's rows are
        // sorted by the feed.
        var feedShard: Shard?
        if case .tree = input { feedShard = shard }

        var manifestError: ManifestError?
        do {
            try stop.whileRegistered({ [pipeline] in pipeline.cancel() }) { () throws(ManifestError) in
                try ManifestFeed.run(reader, parser: parser, pipeline: pipeline, shard: feedShard,
                                    willRun: outputs.expectRun(line:), willReport: outputs.expectReport(line:))
            }
        } catch {
            manifestError = error
        }

        // Uploads still queued are flushed (for a bounded time) before the run counts as over.
        let remote = dryRun ? nil : configuration.cache?.remote?.finish(waiting: trap.receivedSignal == nil)
        let seconds = (ContinuousClock.now - started).inSeconds
        let stamp = shard.map { ReportShard(index: $0.index, count: $0.count, manifestSHA256: reader.sha256 ?? "") }
        // What the caller does with the finished rows before the report closes (`thumbgen
        // site` rewrites its pages): not after a signal or a manifest that could not be read.
        let pages = trap.receivedSignal == nil && manifestError == nil ? try beforeFinish?() : nil
        let placed = finishPlaced(configuration, ledger: ledger, made: made, dryRun: dryRun, heldFiles: heldFiles,
                                  incomplete: incompleteness(manifestError: manifestError, signal: trap.receivedSignal))
        // The progress line goes first, so that the prune's lines stand whole before the summary.
        outputs.progress.finish()
        placed.lines.forEach(printError)
        let summary = try outputs.finish(seconds: seconds, reportPath: report, shard: stamp,
                                         refusedWrites: configuration.cache?.refusedWrites ?? 0,
                                         pruned: placed.pruned, splitSources: reader.splitSources, pages: pages)
        if case .tree(let tree, _) = input { WalkOptions.warnSkippedLinks(tree.skippedLinks) }
        if !quiet { printError((shard.map { "shard \($0): " } ?? "") + summary.line) }
        if !quiet, let line = summary.splitLine { printError(line) }
        if !quiet, let remote { printError(remote.line) }
        if !dryRun, let cache = configuration.cache, trap.receivedSignal == nil {
            RunLog(cache: cache).append(RunLog.Entry(summary, command: command, remote: remote))
        }
        configuration.cache?.close()

        switch trap.receivedSignal {
        case SIGINT: throw ExitStatus.interrupted
        case SIGTERM: throw ExitStatus.terminated
        default: break
        }
        if let manifestError { throw fail(manifestError.description, ExitStatus.unusable) }
        if case .tree(let tree, _) = input { try WalkOptions.report(tree.problems) }
        if summary.failed > 0 && failOn == .error { throw ExitStatus.rowFailed }
    }

    /// Counts a walk's rows (this shard's only) on a thread of its own, with a second walk of
    /// the same paths: the run's own walk goes only as fast as the rows it feeds are taken,
    /// and the total would come at the end. The count costs the folders' listings and each
    /// file's first bytes once more.
    private func countRows(of walk: TreeManifest, into progress: ProgressDisplay) {
        guard progress.isShown else { return }
        let counting = UncheckedBox(walk), shard = self.shard
        Thread.detachNewThread {
            var count = 0
            while let entry = counting.value.next() {
                if shard?.owns(entry) ?? true { count += 1 }
            }
            progress.setTotal(count)
        }
    }

    /// Whether the manifest is a file (read twice: its first pass counts the records), not
    /// standard input.
    private func manifestIsFile() -> Bool {
        if case .manifest(let path) = input { return path != "-" }
        return false
    }

    private func fail(_ message: String, _ status: ExitCode) -> ExitCode {
        printError(message)
        return status
    }
}

/// Writes one `thumbgen: ...` line to standard error, made safe for a terminal: messages name
/// cells, paths and URLs, which a manifest controls.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("thumbgen: \(TerminalText.safe(message))\n".utf8))
}

/// Hands a value that is not `Sendable` to one other thread, which alone uses it from then on.
final class UncheckedBox<Value>: @unchecked Sendable {
    /// The value.
    let value: Value

    /// Boxes `value`.
    init(_ value: Value) { self.value = value }
}
