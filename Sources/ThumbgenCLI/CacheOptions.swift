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

    @Option(help: ArgumentHelp(
        "A cache shared between machines, behind the local one: http(s)://host/prefix (GET and PUT, such as nginx with WebDAV) or s3://bucket/prefix. Credentials come from the environment or a netrc (docs/cache.md, Credentials).",
        valueName: "url"))
    var remoteCache: String?

    @Option(help: ArgumentHelp("The S3-compatible store's URL for an s3:// remote cache (MinIO, R2, ...).", valueName: "url"))
    var remoteCacheEndpoint: String?

    @Flag(help: "Read the remote cache but write nothing to it (for untrusted jobs, such as pull requests from forks).")
    var remoteCacheReadOnly = false

    @Option(help: ArgumentHelp("Seconds one remote cache request may take (connecting: at most 5 of them; receiving nothing: at most 10).", valueName: "seconds"))
    var remoteCacheTimeout: Double = 30

    func validate() throws {
        if noCache && offline {
            throw ValidationError("--offline needs the cache; drop --no-cache")
        }
        if remoteCache == nil && (remoteCacheEndpoint != nil || remoteCacheReadOnly) {
            throw ValidationError("--remote-cache-endpoint and --remote-cache-read-only need --remote-cache")
        }
        if remoteCache != nil && noCache {
            throw ValidationError("--remote-cache sits behind the local cache; drop --no-cache")
        }
        if remoteCache != nil && offline {
            throw ValidationError("--offline opens no connection, to a remote cache neither; drop one of them")
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
        let remote = try openRemote()
        do {
            return try ThumbnailCache(directory: directory, remote: remote)
        } catch {
            printError(error.description)
            throw ExitStatus.unwritable
        }
    }

    /// The remote cache `--remote-cache` names, or nil; throws exit status 2 when it cannot be
    /// used as given. Its one warning of a run goes to standard error.
    private func openRemote() throws -> RemoteCache? {
        guard let remoteCache else { return nil }
        do {
            let settings = try RemoteCacheSettings(url: remoteCache, endpoint: remoteCacheEndpoint,
                                                   readOnly: remoteCacheReadOnly, timeout: remoteCacheTimeout)
            return RemoteCache(settings: settings) { printError("warning: " + $0) }
        } catch {
            printError(error.description)
            throw ExitStatus.unusable
        }
    }
}
