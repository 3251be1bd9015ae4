import ArgumentParser
import Foundation
import Thumbgen

/// Everything `render` and `warm` take besides what is theirs alone: the manifest (or the
/// images, folders and globs to make one of) and the option groups of a run.
struct ManifestOptions: ParsableArguments {
    @Argument(help: "The manifest: a CSV file with a header row, a .jsonl/.ndjson file, or - for standard input. Or image files, folders (walked recursively) and globs, which make the manifest `thumbgen manifest` prints.")
    var inputs: [String]

    @OptionGroup(title: "Folders")
    var walk: WalkOptions

    @OptionGroup(title: "Run")
    var run: RunOptions

    @OptionGroup
    var recipe: RecipeOptions

    @OptionGroup(title: "Sharding")
    var sharding: ShardOptions

    /// Runs the manifest as `command` (`render` or `warm`), writing under `outputDirectory`
    /// (nil: into the cache only); `dryRun` plans it and opens the cache only to look; `prune`
    /// removes what earlier runs placed there and this one did not.
    /// Runs the command's rows; `partial` marks a run over part of the tree (a watch's batch),
    /// which leaves the warm journal of `--out` as it was.
    func execute(command: String, outputDirectory: URL?, dryRun: Bool = false, prune: Bool = false,
                 partial: Bool = false) throws {
        let shard = try sharding.resolve()
        var configuration = try run.configuration(
            outputDirectory: outputDirectory, fetch: recipe.fetch, limits: recipe.limits, cache: recipe.cache,
            lookOnly: dryRun)
        configuration.fetch.credentials = try recipe.sources.credentials()
        configuration.partial = partial
        let input = try input(skipping: outputDirectory)
        var runner = run.runner(input: input, recipe: recipe, command: command)
        runner.shard = shard
        runner.prune = prune
        try runner.run(configuration, dryRun: dryRun)
    }

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("name a manifest, or image files, folders or globs") }
    }

    /// What the run reads: the one manifest given, or the rows of a walk over the paths given
    /// (which skips `out` and the cache where they lie inside the tree).
    func input(skipping out: URL?) throws -> ManifestRunner.Input {
        let loaders = recipe.limits.extraLoaders
        if inputs.count == 1, let only = inputs.first, Self.isManifest(only, extraLoaders: loaders) {
            try recipe.defaults.checkSingleValues()
            return .manifest(only)
        }
        // A missing path among several is the walker's to name (`isManifest` takes one for a
        // manifest, so that a lone one is the reader's to name).
        if let manifest = inputs.first(where: {
            FileManager.default.fileExists(atPath: $0) && Self.isManifest($0, extraLoaders: loaders)
        }) {
            throw ValidationError("\(manifest) is not an image, a folder or a glob; a manifest must be the only input")
        }
        func tree() throws -> TreeManifest {
            let walker = try walk.walker(inputs, skipping: [recipe.cache.directory] + (out.map { [$0] } ?? []),
                                         extraLoaders: loaders)
            return TreeManifest(walker, sizes: recipe.defaults.sizes, formats: recipe.defaults.formats,
                                defaults: recipe.defaults.values)
        }
        return .tree(try tree(), counting: try tree())
    }

    /// Whether `argument` names a manifest: standard input, a pipe (bash's `<(...)`), or a
    /// regular file that does not start like an image (a PDF or SVG one of `extraLoaders`
    /// opens counts as one; a missing path that is no glob too, so that the reader says what is
    /// wrong). A pipe is never sniffed: that would take its bytes.
    static func isManifest(_ argument: String, extraLoaders: [String] = []) -> Bool {
        if argument == "-" { return true }
        var info = stat()
        guard stat(argument, &info) == 0 else { return !PathPattern.isGlob(argument) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return false
        case S_IFREG: return !SourceWalker.looksLikeImage(argument, extraLoaders: extraLoaders)
        default: return true
        }
    }
}
