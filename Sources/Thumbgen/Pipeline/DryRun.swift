import Foundation
import Synchronization

/// `--dry-run`: says what a run would do for each row (leave an output in place, copy it
/// from the cache, render it, fetch its source) and which rows would fail already, touching
/// nothing: no connection, no decode, no file written, no cache entry marked used.
///
/// It knows what the cache checks before any work know: a local file's stamp, a URL's
/// freshness, the output's key. A row whose source would have to be read or fetched is
/// planned `render` or `fetch`; whether that then succeeds only a run can tell.
public final class DryRun: RowSink, Sendable {
    private let cache: ThumbnailCache?
    private let outputDirectory: URL?
    private let limits: ImagingLimits
    private let offline: Bool
    private let onResult: @Sendable (RowResult) -> Void

    /// A dry run of `configuration` (whose cache should be opened `lookingAt:`); results go to
    /// `onResult`, on the calling thread.
    public init(configuration: PipelineConfiguration, onResult: @escaping @Sendable (RowResult) -> Void) {
        cache = configuration.cache
        outputDirectory = configuration.outputDirectory
        limits = configuration.limits
        offline = configuration.offline
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
        var result = RowResult(row: request.row, id: request.id, src: request.sourceText, status: .planned)
        func failed(_ failure: ThumbnailFailure) -> RowResult {
            .failed(row: request.row, id: request.id, src: request.sourceText, failure)
        }
        var digest: String?
        switch request.source {
        case .file(let path):
            if let failure = LocalFileCheck.failure(path: path, src: request.sourceText,
                                                    maxBytes: limits.maxInputBytes) {
                return failed(failure)
            }
            result.plan = .render
            digest = cache?.files.knownDigest(of: path)
        case .remote(let url):
            result.plan = .fetch
            if let cache {
                switch URLCachePolicy(cache: cache, maxAge: request.maxAge, offline: offline)
                    .plan(for: url.absoluteString) {
                case .useStored(let record):
                    digest = record.digest
                    result.plan = .render
                case .unavailable:
                    return failed(ThumbnailFailure(.notCached, "\(request.sourceText): not in the cache (--offline)"))
                default:
                    break
                }
            } else if offline {
                return failed(ThumbnailFailure(.notCached, "\(request.sourceText): not in the cache (--offline)"))
            }
        }
        result.sourceSHA256 = digest
        guard let cache, let digest else { return result }
        let key = OutputKey.make(sourceDigest: digest, request: request, strictness: limits.strictness)
        guard let record = cache.output(key) else { return result }
        result.plan = .reuse
        result.width = record.width
        result.height = record.height
        result.bytes = record.bytes
        result.sha256 = record.sha256
        result.format = record.format
        switch OutputDelivery.path(of: record, for: request) {
        case .failure(let failure): return failed(failure)
        case .success(let path):
            result.out = path
            if let outputDirectory,
               AtomicFileWriter.fileHolds(outputDirectory.appendingPathComponent(path).path,
                                          sha256: record.sha256, size: record.bytes) {
                result.plan = .keep
            }
        }
        return result
    }
}
