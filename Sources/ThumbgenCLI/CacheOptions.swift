import ArgumentParser
import Foundation
import Thumbgen

/// Where the cache is and how a run may use it.
struct CacheOptions: ParsableArguments {
    @OptionGroup var location: CacheLocation

    @Flag(help: "Neither read nor write the cache: every source is fetched and every output rendered.")
    var noCache = false

    @Flag(help: "Use only what the cache holds and open no connection; a row whose source is not cached fails with not_cached.")
    var offline = false

    func validate() throws {
        if noCache && offline {
            throw ValidationError("--offline needs the cache; drop --no-cache")
        }
    }

    /// The directory the options name.
    var directory: URL { location.directory }

    /// Opens the cache for looking only (`--dry-run`): nil with `--no-cache` or when there is
    /// none yet; nothing is created or marked used.
    func openToLook() -> ThumbnailCache? {
        noCache ? nil : ThumbnailCache(lookingAt: directory)
    }

    /// Opens the cache, or nil with `--no-cache`; throws exit status 3 when it is unusable.
    func open() throws -> ThumbnailCache? {
        guard !noCache else { return nil }
        do {
            return try ThumbnailCache(directory: directory)
        } catch {
            printError(error.description)
            throw ExitStatus.unwritable
        }
    }
}
