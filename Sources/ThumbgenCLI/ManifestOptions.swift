import ArgumentParser
import Foundation
import Thumbgen

/// Everything `render` and `warm` take besides what is theirs alone: the manifest and the
/// option groups of a run.
struct ManifestOptions: ParsableArguments {
    @Argument(help: "The manifest: a CSV file with a header row, a .jsonl/.ndjson file, or - for standard input.")
    var manifest: String

    @OptionGroup(title: "Run")
    var run: RunOptions

    @OptionGroup
    var recipe: RecipeOptions

    /// Runs the manifest as `command` (`render` or `warm`), writing under `outputDirectory`
    /// (nil: into the cache only); `dryRun` plans it and opens the cache only to look.
    func execute(command: String, outputDirectory: URL?, dryRun: Bool = false) throws {
        let configuration = try run.configuration(
            outputDirectory: outputDirectory, fetch: recipe.fetch, limits: recipe.limits, cache: recipe.cache,
            lookOnly: dryRun)
        try run.runner(manifest: manifest, recipe: recipe, command: command).run(configuration, dryRun: dryRun)
    }
}
