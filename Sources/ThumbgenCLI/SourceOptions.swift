import ArgumentParser
import Foundation
import Thumbgen

/// Flags for what a URL source is called in the cache and how thumbgen proves who asks for
/// it (docs/cache.md, "Source identity" and "Credentials for sources").
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Query parameters left out of a URL source's identity in the cache (the request still uses the whole URL), comma-separated, case-insensitive; aws stands for the presigned parameters of S3 (X-Amz-*), CloudFront (Expires, Signature, Key-Pair-Id, Policy) and GCS (X-Goog-*).",
        valueName: "name,..."))
    var ignoreQuery: [String] = []

    @Option(help: ArgumentHelp(
        "A netrc whose logins are sent to their hosts only (default: $NETRC, else ~/.netrc, when it exists).",
        valueName: "file"))
    var netrcFile: String?

    @Option(help: ArgumentHelp(
        "A file of header lines sent to one host (and port) only: HOST[:PORT] Header-Name: value, # comments (default: $THUMBGEN_SOURCE_HEADERS). Keep it private: thumbgen warns when its group or others may read it.",
        valueName: "file"))
    var sourceHeaders: String?

    /// The filter `--ignore-query` names; nil without the flag.
    var queryFilter: QueryFilter? {
        get throws {
            guard !ignoreQuery.isEmpty else { return nil }
            return try QueryFilter(names: ignoreQuery.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
        }
    }

    func validate() throws {
        do {
            _ = try queryFilter
        } catch {
            throw ValidationError("\(error); give parameter names such as --ignore-query aws,token")
        }
    }

    /// The credentials these flags and the environment give sources; throws exit status 2,
    /// having said why, when a file named cannot be used. Warns once, on standard error, of a
    /// headers file or a netrc with entries that others may read.
    func credentials(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SourceCredentials {
        var credentials = SourceCredentials()
        if let netrcFile {
            guard let hosts = NetrcHosts(path: netrcFile) else {
                printError("--netrc-file \(netrcFile): cannot be read")
                throw ExitStatus.unusable
            }
            credentials.netrc = hosts
        } else if let named = environment["NETRC"], !named.isEmpty {
            credentials.netrc = NetrcHosts(path: named)  // as the remote cache reads it
        } else if let home = environment["HOME"], !home.isEmpty {
            credentials.netrc = NetrcHosts(path: home + "/.netrc")
        }
        if let path = sourceHeaders ?? environment["THUMBGEN_SOURCE_HEADERS"].flatMap({ $0.isEmpty ? nil : $0 }) {
            do {
                credentials.headers = try SourceHeadersFile.read(path)
            } catch {
                printError(error.description)
                throw ExitStatus.unusable
            }
            if SecretFile.isReadableByOthers(path) {
                printError("warning: --source-headers \(path) may be read by its group or others; chmod 600 it")
            }
        }
        if let netrc = credentials.netrc, netrc.hasDefault || !netrc.machines.isEmpty,
           SecretFile.isReadableByOthers(netrc.path) {
            printError("warning: the netrc \(netrc.path) may be read by its group or others; chmod 600 it")
        }
        credentials.s3 = S3Access(environment: environment)
        return credentials
    }
}
