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

    @OptionGroup
    var manifest: ManifestOptions

    func validate() throws {
        if manifest.recipe.cache.noCache { throw ValidationError("warm fills the cache; it cannot run with --no-cache") }
        if manifest.run.index != nil { throw ValidationError("warm writes no outputs to index; use --index with render") }
        if manifest.run.html != nil { throw ValidationError("warm writes no outputs to show; use --html with render") }
    }

    func run() throws {
        try manifest.execute(command: "warm", outputDirectory: nil)
    }
}
