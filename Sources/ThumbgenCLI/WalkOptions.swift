import ArgumentParser
import Foundation
import Thumbgen

/// How folders and globs on the command line are walked (`manifest`, and `render` or `warm`
/// given folders).
struct WalkOptions: ParsableArguments {
    @Flag(help: "Follow symbolic links found in folders (links named on the command line are always followed); a link that leads back to a folder it lies in is an error.")
    var followLinks = false

    /// The walk of `paths` by these options, skipping `folders` (`--out`, the cache) where
    /// they lie inside the tree and taking the PDF and SVG files of `extraLoaders`
    /// (`--enable-loader`); throws exit status 2, naming the path, for a path that is neither a
    /// file, a folder nor a glob.
    func walker(_ paths: [String], skipping folders: [URL], extraLoaders: [String] = []) throws -> SourceWalker {
        var inputs: [InputPath] = []
        for path in paths {
            do {
                inputs.append(try InputPath.classify(path))
            } catch {
                printError(error.description)
                throw ExitStatus.unusable
            }
        }
        var rules = WalkRules(followLinks: followLinks, skipping: folders.map(\.path), extraLoaders: extraLoaders)
        // A watch's batch walks only what changed.
        if let paths = WatchLoop.partialPaths { rules.walkOnly(paths) }
        return SourceWalker(inputs, rules: rules)
    }

    /// Says once, on standard error, how many symbolic links the walk left alone and how to
    /// follow them: a folder of links (a `stow`ed, `nix`-built or `git annex` tree) would
    /// otherwise give no rows and no word why.
    static func warnSkippedLinks(_ count: Int) {
        guard count > 0 else { return }
        printError("skipped \(count) symbolic link\(count == 1 ? "" : "s") in the folders walked; "
                   + "--follow-links follows them")
    }

    /// Says what went wrong in the walk, on standard error; throws exit status 2 if anything
    /// did (after every image that was found has had its row).
    static func report(_ problems: [GatherError]) throws {
        guard !problems.isEmpty else { return }
        for problem in problems { printError(problem.description) }
        throw ExitStatus.unusable
    }
}
