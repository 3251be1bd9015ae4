import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen MANIFEST --out DIR`: makes every output the manifest lists.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Make the thumbnails a manifest lists (the default command).")

    @Argument(help: "The manifest: a CSV file with a header row, a .jsonl/.ndjson file, or - for standard input.")
    var manifest: String

    @Option(name: .long, help: "The folder outputs are written under; created if missing.")
    var out: String

    @OptionGroup(title: "Run")
    var options: RunOptions

    @Flag(help: "Read and check every row and the cache, and report what a run would write, reuse, render or fetch, touching nothing (no connection, no decode, no file but the --report, --html and --events asked for).")
    var dryRun = false

    @OptionGroup(title: "Cache")
    var cache: CacheOptions

    @OptionGroup(title: "Column defaults")
    var defaults: ColumnDefaults

    @OptionGroup(title: "Output formats")
    var formats: FormatOptions

    @OptionGroup(title: "HTTP sources")
    var fetch: FetchOptions

    @OptionGroup(title: "Image limits")
    var limits: LimitOptions

    func run() throws {
        let configuration = try options.configuration(
            outputDirectory: URL(fileURLWithPath: out), fetch: fetch, limits: limits, cache: cache,
            lookOnly: dryRun)
        try options.runner(manifest: manifest, defaults: defaults, formats: formats, command: "render")
            .run(configuration, dryRun: dryRun)
    }
}
