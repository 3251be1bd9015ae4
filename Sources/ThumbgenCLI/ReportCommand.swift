import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen report`: work on `--report` files.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Work on --report files.",
        subcommands: [ReportMergeCommand.self])
}

/// `thumbgen report merge R1 R2 … -o REPORT [--html PAGE]`: the shards' reports as one.
struct ReportMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the reports of every shard of a manifest (--shard I/N) into the report one process would have written.",
        discussion: """
            The rows come out in manifest order and the summary is counted again from them; \
            seconds is the slowest shard's, cpu_seconds the sum. Reports of different \
            manifests, of different numbers of shards, of one shard twice, or missing a \
            shard are refused (status 2), naming the files.
            """)

    @Argument(help: "The shards' reports, one per shard, in any order.")
    var reports: [String]

    @Option(name: .shortAndLong, help: "Write the merged report to this file.")
    var output: String

    @Option(help: "Also write an HTML contact sheet of every row to this file.")
    var html: String?

    @Option(help: "The folder the shards wrote under, which the contact sheet's images point into (default: the current folder).")
    var out: String = "."

    func validate() throws {
        if reports.isEmpty { throw ValidationError("give the reports to merge, one per shard") }
    }

    func run() throws {
        let outcome: ReportMerge.Outcome
        do {
            outcome = try ReportMerge.merge(reports, into: output, html: html,
                                            outputDirectory: URL(fileURLWithPath: out))
        } catch {
            printError(error.description)
            if case .unwritable = error { throw ExitStatus.unwritable }
            throw ExitStatus.unusable
        }
        for (row, path) in outcome.sharedPaths.prefix(10) {
            printError("row \(row): \(path) was also written by a row of another shard (one run would have failed this row output_conflict)")
        }
        printError("merged \(reports.count) reports: " + outcome.summary.line)
    }
}
