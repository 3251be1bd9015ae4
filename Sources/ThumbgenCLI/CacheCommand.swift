import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen cache stats | prune | verify | clear`: looks after the cache directory.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, prune, verify or clear the cache directory.",
        discussion: """
            Every subcommand is safe while other thumbgen processes use the same cache: \
            entries are removed whole, and clear renames the cache aside before deleting it.
            """,
        subcommands: [Stats.self, Prune.self, Verify.self, Clear.self])

    /// `cache stats`: entries, bytes, and the hit rates of recent runs.
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the entries and bytes per kind, and the hit rates of recent runs.")

        @OptionGroup var location: CacheLocation

        @Flag(help: "Print one JSON object (keys: directory, entries, bytes, oldest_use, newest_use, runs) instead of a table.")
        var json = false

        func run() throws {
            let stats = try location.maintain { $0.stats() }
            print(json ? try stats.json() : stats.table())
        }
    }

    /// `cache prune`: least recently used first, down to a size and/or an age.
    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove what has not been used for --max-age, then the least recently used down to --max-size.",
            discussion: """
                Blobs no record names and stray temporary files are removed too, once they are \
                an hour old (a running process may be about to name them).
                """)

        @OptionGroup var location: CacheLocation

        @Option(help: ArgumentHelp(
            "Bytes the cache may hold, with an optional K, M, G or T (powers of 1024), such as 500M or 2G.",
            valueName: "size"))
        var maxSize: String?

        @Option(help: ArgumentHelp(
            "Remove what has not been used for this long: seconds, or a number with s, m, h, d or w, such as 30d or 12h.",
            valueName: "age"))
        var maxAge: String?

        func validate() throws {
            guard maxSize != nil || maxAge != nil else {
                throw ValidationError(
                    "say how much to keep: --max-size (such as 500M or 2G), --max-age (such as 30d or 12h), or both")
            }
            _ = try limits()
        }

        func run() throws {
            let (size, age) = try limits()
            print(try location.maintain { $0.prune(maxSize: size, maxAge: age) }.line)
        }

        /// The parsed limits; a validation error saying what to type when one does not parse.
        private func limits() throws -> (size: Int64?, age: Double?) {
            let size = try maxSize.map { text in
                guard let bytes = CacheLimits.bytes(text) else {
                    throw ValidationError("--max-size '\(text)' is not a size: type bytes, "
                                          + "or a number with K, M, G or T, such as 500M or 2G")
                }
                return bytes
            }
            let age = try maxAge.map { text in
                guard let seconds = CacheLimits.seconds(text) else {
                    throw ValidationError("--max-age '\(text)' is not an age: type seconds, "
                                          + "or a number with s, m, h, d or w, such as 30d or 12h")
                }
                return seconds
            }
            return (size, age)
        }
    }

    /// `cache verify`: re-hash everything, drop what does not match.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-hash every blob and check every record; remove what is damaged or names a missing blob.")

        @OptionGroup var location: CacheLocation

        func run() throws {
            print(try location.maintain { $0.verify() }.line)
        }
    }

    /// `cache clear`: empty the cache.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove everything in the cache; the next run starts cold.")

        @OptionGroup var location: CacheLocation

        func run() throws {
            let cleared = try location.maintain { maintenance in
                Result { () throws(CacheError) -> CacheMaintenance.ClearResult in try maintenance.clear() }
            }
            switch cleared {
            case .success(let result):
                print(result.line)
            case .failure(let error):
                printError(error.description)
                throw ExitStatus.unwritable
            }
        }
    }
}

/// The sizes and ages `cache prune` accepts.
enum CacheLimits {
    /// `123456`, `500M`, `2G`, `1.5T` as bytes (`ByteCount`); nil when it is not a size.
    static func bytes(_ text: String) -> Int64? {
        ByteCount.parse(text)
    }

    /// `3600`, `90s`, `15m`, `12h`, `30d`, `2w` as seconds; nil when it is not an age.
    static func seconds(_ text: String) -> Double? {
        guard let (value, unit) = split(text),
              let factor = ["": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800][unit]
        else { return nil }
        return value * Double(factor)
    }

    /// A plain decimal number (no sign, exponent, `inf` or `nan`) and the lowercased rest.
    private static func split(_ text: String) -> (Double, String)? {
        let number = text.prefix { ("0"..."9").contains($0) || $0 == "." }
        guard number.contains(where: { $0 != "." }), number.filter({ $0 == "." }).count <= 1,
              let value = Double(number) else { return nil }
        return (value, text.dropFirst(number.count).lowercased())
    }
}

extension CacheLocation {
    /// `body` over the cache, opened to look after it (`--cache-dir`, the one option every
    /// `cache` subcommand takes) and closed after it; exit status 3 when it cannot be made or
    /// written.
    func maintain<T>(_ body: (CacheMaintenance) -> T) throws -> T {
        let cache: ThumbnailCache
        do {
            cache = try ThumbnailCache(directory: directory)
        } catch {
            printError(error.description)
            throw ExitStatus.unwritable
        }
        defer { cache.close() }
        return body(CacheMaintenance(cache: cache))
    }
}
