import Foundation
import Synchronization

/// `--dry-run`: the planner without an executor. Says what a run would do for each row (leave
/// an output in place, copy it from the cache, render it, fetch its source) and which rows
/// would fail already, touching nothing: no connection, no decode, no file or cache entry
/// written, no entry marked used or dropped.
///
/// The planner looks as a run would: a local file whose stamp is not on record is read to
/// hash it, cached bytes are checked. A URL that must be fetched or revalidated is planned
/// `fetch`; what the server then says, and whether decoding succeeds, only a run can tell.
public final class DryRun: RowSink, Sendable {
    private let planner: RowPlanner
    private let onResult: @Sendable (RowResult) -> Void

    /// A dry run of `configuration` (whose cache should be opened `lookingAt:`); results go to
    /// `onResult`, on the calling thread.
    public init(configuration: PipelineConfiguration, onResult: @escaping @Sendable (RowResult) -> Void) {
        planner = RowPlanner(cache: configuration.cache, outputDirectory: configuration.outputDirectory,
                             limits: configuration.limits, offline: configuration.offline)
        self.onResult = onResult
    }

    /// Plans one row.
    public func submit(_ request: ThumbnailRequest) {
        onResult(plan(request))
    }

    /// Reports a row the manifest parser refused.
    public func reject(_ result: RowResult) {
        onResult(result)
    }

    private let cancelled = Mutex(false)

    /// Whether `cancel()` was called: the reader then stops feeding rows.
    public var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Stops planning rows (SIGINT, SIGTERM): a dry run hashes outputs, which takes time.
    /// Nothing to start: a dry run plans each row as it is taken.
    public func flush() {}

    public func cancel() {
        cancelled.withLock { $0 = true }
    }

    /// Every row is planned as it is submitted.
    public func waitUntilFinished() {}

    private func plan(_ request: ThumbnailRequest) -> RowResult {
        let plan = planner.plan(request)
        if let failure = plan.failure {
            return .failed(row: request.row, id: request.id, src: request.sourceText, failure)
        }
        var result = RowResult(row: request.row, id: request.id, src: request.sourceText, status: .planned)
        result.plan = plan.reported
        result.sourceSHA256 = plan.sourceDigest
        result.out = plan.path
        if let record = plan.output, plan.action == .keep || plan.action == .copy {
            result.width = record.width
            result.height = record.height
            result.bytes = record.bytes
            result.sha256 = record.sha256
            result.format = record.format
        }
        return result
    }
}
