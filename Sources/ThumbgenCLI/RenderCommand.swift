import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen MANIFEST --out DIR`: makes every output the manifest lists.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Make the thumbnails a manifest lists (the default command).")

    @OptionGroup
    var manifest: ManifestOptions

    @Option(name: .long, help: "The folder outputs are written under; created if missing.")
    var out: String

    @Flag(help: "Read and check every row and the cache, and report what a run would write, reuse, render or fetch, touching nothing (no connection, no decode, no file but the --report, --html and --events asked for).")
    var dryRun = false

    @Flag(help: "After a run whose rows all ended, remove the files an earlier run placed under --out that no row of this run produced: never a file thumbgen did not place, nor one changed since (named in a warning); with --shard, only the shard's own; with --dry-run, list them.")
    var prune = false

    func validate() throws {
        if dryRun && manifest.run.index != nil { throw ValidationError("--dry-run writes no outputs to index; drop --index") }
    }

    func run() throws {
        try manifest.execute(command: "render", outputDirectory: URL(fileURLWithPath: out), dryRun: dryRun,
                             prune: prune)
    }
}
