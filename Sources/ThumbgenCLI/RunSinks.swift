import ArgumentParser
import Foundation
import Thumbgen

/// Everything a run tells people and scripts besides the outputs: failed rows and the
/// summary on standard error, the progress line, the `--report`, `--html` and `--events`
/// files. Opened before any row runs, so that an unwritable file stops the run at once.
final class RunSinks: Sendable {
    let recorder: RunRecorder
    let progress: ProgressDisplay
    let events: EventLog?
    private let sheet: ContactSheet?
    private let index: ImageIndex?
    private let htmlPath: String?
    private let indexPath: String?
    /// The files written for a `-` destination (standard output), copied there at the end.
    private let standardOutputFiles: [URL]

    /// Opens the files `runner` names; throws the exit status (3) for one that cannot be
    /// written, after saying which. `ledger` hears every result (the record of placed files).
    init(_ runner: ManifestRunner, outputDirectory: URL?, started: ContinuousClock.Instant,
         ledger: PlacedLedger? = nil) throws {
        func unwritable(_ path: String, _ what: String) -> ExitCode {
            printError("\(path): cannot write the \(what)")
            return ExitStatus.unwritable
        }
        // The report and the index are whole documents, put in place when the run ends: for `-`,
        // written to a file of their own, then copied to standard output.
        let reportFile = runner.report.map { Self.destination($0, "report") }
        let indexFile = runner.index.map { Self.destination($0, "index") }
        standardOutputFiles = [(runner.report, reportFile), (runner.index, indexFile)]
            .compactMap { $0.0 == "-" ? $0.1 : nil }
        let stream: ReportStream?
        do {
            stream = try reportFile.map { try ReportStream(destination: $0) }
        } catch {
            throw unwritable(runner.report ?? "", "report")
        }
        do {
            sheet = try runner.html.map {
                try ContactSheet(destination: URL(fileURLWithPath: $0),
                                 outputDirectory: outputDirectory ?? URL(fileURLWithPath: "."))
            }
        } catch {
            throw unwritable(runner.html ?? "", "contact sheet")
        }
        do {
            // A watch's runs add to the log its first run began (`WatchLoop`).
            events = try runner.events.map { try EventLog(path: $0, started: started, appending: WatchLoop.isChild) }
        } catch {
            throw unwritable(runner.events ?? "", "event log")
        }
        do {
            index = try indexFile.map {
                try ImageIndex(destination: $0, urlPrefix: runner.indexURLPrefix ?? "",
                               sizes: runner.sizes ?? ImageIndex.defaultSizes,
                               densities: runner.recipe.defaults.densities)
            }
        } catch {
            throw unwritable(runner.index ?? "", "index")
        }
        htmlPath = runner.html
        indexPath = runner.index
        let progress = ProgressDisplay(style: runner.progress)
        self.progress = progress
        let (quiet, verbose, sheet, events, index) = (runner.quiet, runner.verbose, self.sheet, self.events, self.index)
        // The event log and the progress display guard themselves; the sheet is fed in order.
        recorder = RunRecorder(report: stream, alongside: { results in
            progress.count(results)
            ledger?.note(results)
            if let events { results.forEach(events.log) }
        }, onEach: { result in
            if !quiet, let line = Self.line(for: result, verbose: verbose) { progress.print(line) }
            sheet?.add(result)
            index?.add(result)
        })
    }

    /// The file a report or index named `path` is put at: `path` itself, or for `-` (standard
    /// output) a file of the system's temporary folder, copied out by `finish`.
    private static func destination(_ path: String, _ what: String) -> URL {
        guard path == "-" else { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("thumbgen-\(what)-\(getpid())-\(UUID().uuidString).json")
    }

    /// Notes that the record on `line` runs next: its place in the index, whose entries go
    /// source by source.
    func expectRun(line: Int) {
        index?.expect(line: line)
    }

    /// Notes that the record on `line` was read: its place in the report, in manifest order.
    func expectReport(line: Int) {
        recorder.expect(line: line)
    }

    /// Ends the run's files and the progress line (the report saying which `shard` it
    /// covers, if one, and the files `--prune` removed); returns the summary.
    func finish(seconds: Double, reportPath: String?, shard: ReportShard? = nil,
                refusedWrites: Int = 0, pruned: [PlacedFile]? = nil, splitSources: Int = 0,
                pages: [SitePageReport]? = nil) throws -> RunSummary {
        progress.finish()
        let summary: RunSummary
        do {
            summary = try recorder.finish(seconds: seconds, shard: shard, refusedWrites: refusedWrites,
                                          pruned: pruned, splitSources: splitSources, pages: pages)
        } catch {
            printError("\(reportPath ?? ""): cannot write the report")
            throw ExitStatus.unwritable
        }
        do {
            try sheet?.finish(summary: summary)
        } catch {
            printError("\(htmlPath ?? ""): cannot write the contact sheet")
            throw ExitStatus.unwritable
        }
        do {
            try index?.finish()
        } catch {
            printError("\(indexPath ?? ""): cannot write the index")
            throw ExitStatus.unwritable
        }
        for file in standardOutputFiles {
            defer { try? FileManager.default.removeItem(at: file) }
            // In blocks: a million rows' report is hundreds of megabytes.
            guard let handle = try? FileHandle(forReadingFrom: file) else { continue }
            defer { try? handle.close() }
            while let block = try? handle.read(upToCount: 1 << 20), !block.isEmpty {
                FileHandle.standardOutput.write(block)
            }
        }
        return summary
    }

    /// What standard error shows for a finished row: failures always (unless quiet), the
    /// others with `-v`.
    static func line(for result: RowResult, verbose: Bool) -> String? {
        if let error = result.error { return "thumbgen: row \(result.row): \(error.message)" }
        guard verbose else { return nil }
        var text = "thumbgen: row \(result.row): " + (result.plan.map { "would \($0.rawValue)" } ?? result.status.rawValue)
        if let out = result.out { text += " " + out }
        if let width = result.width, let height = result.height { text += " \(width)x\(height)" }
        if let bytes = result.bytes { text += " " + ProgressMeter.bytes(Int64(bytes)) }
        if let cache = result.cache { text += " (cache \(cache.rawValue))" }
        return text
    }
}
