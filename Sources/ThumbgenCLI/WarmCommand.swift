import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen warm MANIFEST`: brings the cache up to date for a manifest, writing no outputs.
struct WarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Fetch or revalidate every source and render every output into the cache, writing nothing else (for cron).",
        discussion: """
            A later `thumbgen MANIFEST --out DIR` over the same cache then only copies outputs. \
            Each row is reported as fresh (nothing to do), revalidated (the server answered \
            304), fetched (the source was downloaded again), rendered (the output was made) \
            or failed.
            """)

    @Argument(help: "The manifest: a CSV file with a header row, a .jsonl/.ndjson file, or - for standard input.")
    var manifest: String

    @OptionGroup(title: "Run")
    var options: RunOptions

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

    func validate() throws {
        if cache.noCache { throw ValidationError("warm fills the cache; it cannot run with --no-cache") }
        if options.html != nil { throw ValidationError("warm writes no outputs to show; use --html with render") }
    }

    func run() throws {
        let configuration = try options.configuration(outputDirectory: nil, fetch: fetch, limits: limits, cache: cache)
        try options.runner(manifest: manifest, defaults: defaults, formats: formats, command: "warm").run(configuration)
    }
}
