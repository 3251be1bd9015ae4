import Foundation

/// `thumbgen explain`: what the planner decides for one row and why, as text for people and
/// as JSON. It is the plan a run would carry out, shown with the facts it stands on: the
/// output key's parts, what the cache and `--out` hold, a URL's freshness arithmetic, and
/// which part of the key changed since an output of the same source was last made.
///
/// Made by a planner that only looks: nothing is fetched, decoded, written, marked used or
/// dropped (a local file whose stamp is not on record is read to hash it, as a run would).
public struct Explanation: Sendable, Equatable, Encodable {
    /// The row's line in the manifest, its `id` and its `src`.
    public var row: Int, id: String, src: String
    /// `keep`, `copy`, `render`, `read`, `fetch`, `revalidate` or `fail`.
    public var plan: String
    /// Why, a line each, in the order the planner found them.
    public var reasons: [String]
    /// The error a run would meet (for `fail`).
    public var error: RowResult.Failure?
    /// The output key and its parts (absent without a cache).
    public var key: Key?
    /// What the cache holds for the row.
    public var cache: CacheState?
    /// The output's path under `--out` and whether the file there holds the cached output
    /// (when the output is cached).
    public var out: OutFile?
    /// A URL's stored body against its lifetime.
    public var freshness: Freshness?
    /// How the key differs from the nearest one made before for the same source (on a miss).
    public var changed: Change?
    /// What a URL source is called in the cache (absent for a local file).
    public var identity: Identity?
    /// The row's settings that are not defaults, each with where it came from (`explain`
    /// fills it: the row, its preset, a flag or `thumbgen.toml`).
    public var settings: [Setting]?

    /// One setting of the row and where its value came from.
    public struct Setting: Sendable, Equatable, Encodable {
        /// The column's name (`quality`).
        public var name: String
        public var value: String
        /// `the row`, `the row's preset NAME (FILE:LINE)`, `--quality on the command line`, or
        /// `FILE:LINE: [TABLE] KEY`.
        public var from: String

        /// The setting `name` = `value`, from `from`.
        public init(name: String, value: String, from: String) {
            self.name = name
            self.value = value
            self.from = from
        }
    }

    /// A URL source's name in the cache, and how it was made.
    public struct Identity: Sendable, Equatable, Encodable {
        /// The text the cache keys the source by.
        public var key: String
        /// `url` (the URL as written), `source_key` (the column) or `ignore_query`.
        public var from: String
        /// The query parameters `--ignore-query` left out, by name (never their values).
        public var dropped: [String]
    }

    /// An output key: its digest, and each part that enters it.
    public struct Key: Sendable, Equatable, Encodable {
        /// The digest outputs are stored under. For a URL not yet fetched, the key the
        /// stored body would give, when there is one (`source` says which).
        public var digest: String
        /// `name`, `value` pairs in the order they enter the digest.
        public var parts: [Part]
        /// `known`, or `stored` (a URL's stored body, which the server may replace).
        public var source: String
    }

    /// One part of a key.
    public struct Part: Sendable, Equatable, Encodable {
        public var name: String, value: String
    }

    /// What the cache holds for the row.
    public struct CacheState: Sendable, Equatable, Encodable {
        /// `absent`, `damaged_record`, `damaged_bytes`, `present` or `over_budget` (the key's
        /// verdict: its output cannot fit `max_output_bytes`); nil when the key is not known.
        public var output: String?
        /// The source as the cache knows it: `stamp unchanged`, `stamp not on record`, `url
        /// stored`, `url not stored`, `never stored (max_age < 0)`.
        public var source: String
    }

    /// The output's file under `--out`.
    public struct OutFile: Sendable, Equatable, Encodable {
        public var path: String
        /// Whether the file holds exactly the cached output.
        public var holds: Bool
    }

    /// A URL's freshness arithmetic.
    public struct Freshness: Sendable, Equatable, Encodable {
        /// Seconds since the body was fetched or revalidated.
        public var age: Double
        /// Seconds it stays fresh.
        public var lifetime: Double
        /// `max_age` or `headers`.
        public var lifetime_from: String
        public var fresh: Bool
        public var has_validators: Bool
    }

    /// What changed since an output of the same source was last made.
    public struct Change: Sendable, Equatable, Encodable {
        /// The nearest stored key (the fewest parts differing).
        public var since: String
        /// The parts that differ, with their values then and now.
        public var parts: [ChangedPart]
    }

    /// One changed part.
    public struct ChangedPart: Sendable, Equatable, Encodable {
        public var name: String
        public var was: String?
        public var now: String?
    }

    /// The JSON object, keys sorted.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The explanation for people.
    public var text: String {
        var lines = ["row \(row) (id \(id)): \(src)", "  plan: \(plan)"]
        lines += reasons.map { "    - " + $0 }
        if let identity {
            lines.append("  identity: \(identity.key)" + (identity.from == "source_key" ? " (source_key)" : "")
                         + (identity.dropped.isEmpty ? "" : " (--ignore-query dropped \(identity.dropped.joined(separator: ", ")))"))
        }
        if let error { lines.append("  error: \(error.code.rawValue): \(error.message)") }
        if let settings, !settings.isEmpty {
            lines.append("  settings:")
            let width = settings.map(\.name.count).max() ?? 0
            lines += settings.map { "    " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \($0.value)  (\($0.from))" }
        }
        if let cache {
            lines.append("  cache: source \(cache.source)" + (cache.output.map { "; output \($0)" } ?? ""))
        }
        if let freshness {
            lines.append("  freshness: age \(RowPlanner.seconds(freshness.age)), fresh for "
                         + "\(RowPlanner.seconds(freshness.lifetime)) (\(freshness.lifetime_from)): "
                         + (freshness.fresh ? "fresh" : "stale")
                         + (freshness.has_validators ? ", can revalidate" : ", no validator"))
        }
        if let out { lines.append("  out: \(out.path) (\(out.holds ? "holds the cached output" : "differs or missing"))") }
        if let key {
            lines.append("  key: \(key.digest)" + (key.source == "stored" ? " (with the stored body)" : ""))
            let width = key.parts.map(\.name.count).max() ?? 0
            lines += key.parts.map { "    " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.value }
        }
        if let changed {
            lines.append("  changed since \(changed.since.prefix(12))…: "
                         + changed.parts.map { "\($0.name) \($0.was ?? "-") → \($0.now ?? "-")" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
