import Foundation

/// Where a row is on its way from the manifest to the report. A row only moves forward, and
/// may skip stages: a URL row's source is fetched, a local one's is not; a row the cache
/// serves goes from planned to written. Any stage may end it with a failure instead.
///
///     planned ─► fetched ─► identified ─► rendered ─► written ─► recorded
///        │           │            │            │                     ▲
///        └───────────┴────────────┴────────────┴───── failed ────────┘
enum RowStage: Int, Comparable, Sendable {
    case planned, fetched, identified, rendered, written, recorded

    /// Stages compare in the order a row passes them.
    static func < (lhs: RowStage, rhs: RowStage) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What a stage tells a row's job. `Job.advance` applies it: the one place a row moves on,
/// and the one place it ends, with its output or with a failure, whichever stage or process
/// the word came from.
enum RowEvent: Sendable {
    /// Its source's download ended: what the server answered, when it answered.
    case fetched(RowResult.HTTPInfo?)
    /// Its source's bytes are known: where they came from, and their digest when hashed.
    case identified(SourceOrigin, digest: String?)
    /// Its source's header was read (said at once, for `--events`; the stage does not change)
    /// by the process's `decode`th decode.
    case loaded(RowResult.SourceInfo, decode: Int)
    /// Its output is made and waits for its write.
    case rendered
    /// Its output is in place, or was already: the row's result.
    case written(RowResult)
    /// A stage could not go on: the row ends with `failure`, unless it has ended already or
    /// its file is in place (then only the write's own result ends it).
    case failed(ThumbnailFailure)
    /// The cache holds the row's verdict (its output cannot fit `max_output_bytes`): it ends
    /// with `failure`, served by the cache as an output would be (`cache: hit`).
    case verdict(ThumbnailFailure)
}
