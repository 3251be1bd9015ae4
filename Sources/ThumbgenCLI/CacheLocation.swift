import ArgumentParser
import Foundation
import Thumbgen

/// `--cache-dir`, declared once for every command that reaches the cache (runs through
/// `CacheOptions`, the `cache` subcommands directly), so that its help and default never drift.
struct CacheLocation: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The cache directory (default: $THUMBGEN_CACHE_DIR, else $XDG_CACHE_HOME/thumbgen, else ~/.cache/thumbgen).",
        valueName: "dir"))
    var cacheDir: String?

    /// The directory the option names, else the default one.
    var directory: URL {
        cacheDir.map { URL(fileURLWithPath: $0) } ?? ThumbnailCache.defaultDirectory()
    }
}
