import Foundation

/// What the planner decided for one row, and why: what `--dry-run` reports, what `explain`
/// prints, and what a run carries out.
///
/// A row whose source must be read or fetched before the cache can be asked (a local file
/// whose stamp is not on record, a URL that is stale or not stored) is planned `read`, `fetch`
/// or `revalidate`; once its source's digest is known, the planner plans it again, and that
/// plan says `keep`, `copy` or `render`.
struct RowPlan: Sendable {
    /// What is done for the row.
    enum Action: String, Sendable {
        /// The file under `--out` already holds the cached output (for `warm`: the cache holds
        /// it, sound): nothing is written.
        case keep
        /// The cached output is copied under `--out`.
        case copy
        /// The source is decoded and the output rendered (and stored in the cache).
        case render
        /// The local file is hashed first (its stamp is not on record), then planned again.
        case read
        /// The source is downloaded first, then planned again.
        case fetch
        /// The server is asked whether the stored source changed, then planned again.
        case revalidate
        /// The row fails before any work: `failure` says why.
        case fail
        /// The local cache lacks an entry the remote cache may hold (`remoteQuery`): the
        /// executor asks the remote, then plans the row again. Never made by a planner that
        /// only looks.
        case askRemote
    }

    /// How a source's bytes are got when the row needs them.
    enum SourceStep: Sendable, Equatable {
        /// Read the local file.
        case local
        /// Use the cache's stored body as it is.
        case stored(URLRecord)
        /// Ask the server with these conditional header lines.
        case revalidate(URLRecord, headers: [String])
        /// Download the body.
        case fetch
    }

    /// What the cache held for the row's output key.
    enum CachedOutput: String, Sendable {
        /// No record under the key.
        case absent
        /// A record that does not decode (replaced when the run renders the output).
        case damagedRecord = "damaged_record"
        /// A sound record whose bytes are missing or damaged (replaced when the run renders it).
        case damagedBytes = "damaged_bytes"
        /// A sound record and sound bytes.
        case present
        /// The key's verdict: the output cannot fit its `max_output_bytes` (the row fails,
        /// served by the cache).
        case overBudget = "over_budget"
    }

    /// What the cache knew of the source before any work.
    enum CachedSource: String, Sendable {
        /// A local file whose stamp is on record and unchanged.
        case stampUnchanged = "stamp unchanged"
        /// A local file whose stamp is not on record (new, or changed since it was hashed).
        case stampNotOnRecord = "stamp not on record"
        /// A URL whose body is stored.
        case urlStored = "url stored"
        /// A URL with no usable body stored.
        case urlNotStored = "url not stored"
        /// A URL whose row has `max_age` < 0.
        case neverStored = "never stored (max_age < 0)"
    }

    /// The action.
    var action: Action
    /// Why, one reason a line, in the order they were found.
    var reasons: [String] = []
    /// How the source's bytes are got (for `render`, `read`, `fetch`, `revalidate`).
    var step: SourceStep?
    /// The source's digest, when known without work left to do.
    var sourceDigest: String?
    /// Where the source's bytes come from in this run, when known.
    var origin: SourceOrigin?
    /// The output key, when the source's digest is known (and a cache is used).
    var key: OutputKey?
    /// What the cache knew of the source (nil without a cache).
    var cachedSource: CachedSource?
    /// What the cache held under `key`.
    var cached: CachedOutput?
    /// The cached output's record (for `keep` and `copy`).
    var output: OutputRecord?
    /// The output's path under `--out`, when it is known before rendering.
    var path: String?
    /// Whether the file at `path` held the cached bytes (nil when not looked at).
    var outHolds: Bool?
    /// The cached output's bytes, checked (for `copy`).
    var bytes: Data?
    /// The freshness arithmetic of a URL's stored body.
    var freshness: Freshness?
    /// Why the row fails (for `fail`).
    var failure: ThumbnailFailure?
    /// What to ask the remote cache (for `askRemote`).
    var remoteQuery: RemoteQuery?

    /// A stored URL body's age against its lifetime.
    struct Freshness: Sendable, Equatable {
        /// Seconds since it was fetched or revalidated.
        var age: Double
        /// Seconds it stays fresh, and where that number comes from.
        var lifetime: Double
        /// `max_age` (when the row's is positive) or `headers` (Cache-Control or Expires).
        var lifetimeFrom: String
        /// Whether it is used without asking the server.
        var fresh: Bool
        /// Whether a conditional request can be made (an ETag or a Last-Modified).
        var hasValidators: Bool
    }

    /// Whether the row fails by the cache's verdict (a cache hit), not before the cache is asked.
    var failsFromCache: Bool { action == .fail && cached == .overBudget }

    /// The `plan` the report gives a row of a dry run.
    var reported: RowResult.Plan? {
        switch action {
        case .keep: .keep
        case .copy: .reuse
        case .render, .read: .render
        case .fetch, .revalidate, .askRemote: .fetch
        case .fail: nil
        }
    }
}
