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

    @Flag(help: "After the run, watch the input folders and run again whenever an image in them is added, changed or removed (with --prune, a removed image's outputs go), until Ctrl-C. Folders, globs and image files only.")
    var watch = false

    func validate() throws {
        if dryRun && manifest.run.index != nil { throw ValidationError("--dry-run writes no outputs to index; drop --index") }
    }

    func run() throws {
        if watch && !WatchLoop.isChild {
            let input = try manifest.input(skipping: URL(fileURLWithPath: out))
            guard case .tree = input else { throw ValidationError("--watch needs folders, globs or image files as input, not a manifest") }
            let roots = manifest.inputs.map { input -> String in
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: input, isDirectory: &isFolder), isFolder.boolValue { return input }
                // A file's folder, or a glob's folder: the part before its first wildcard.
                let fixed = input.prefix { !"*?[".contains($0) }
                let folder = (String(fixed) as NSString).deletingLastPathComponent
                return folder.isEmpty ? "." : folder
            }
            let written = [manifest.run.events, manifest.run.report, manifest.run.index, manifest.run.html].compactMap { $0 }
            // The index and the contact sheet list every output: a batch's run makes them whole.
            let partial = manifest.run.index == nil && manifest.run.html == nil
            WatchLoop.run(roots: Array(Set(roots)).sorted(), skipping: [out, manifest.recipe.cache.directory.path] + written,
                          events: manifest.run.events, partial: partial, prune: prune)
        }
        // A watch's partial run prunes nothing: what it did not walk is not gone.
        let partial = WatchLoop.partialPaths != nil
        try manifest.execute(command: "render", outputDirectory: URL(fileURLWithPath: out), dryRun: dryRun,
                             prune: prune && !partial, partial: partial)
    }
}
