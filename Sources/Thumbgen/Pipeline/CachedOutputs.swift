import Foundation
import Synchronization

/// Serves rows from the cache: the check that decides "up to date" before a row becomes a job
/// (no operation, no connection, no decode), and the same check inside a source's decode once
/// its digest is known (after a `304`, or after hashing a changed local file).
struct CachedOutputs: Sendable {
    let cache: ThumbnailCache
    let delivery: OutputDelivery
    let mode: RunMode
    /// `--offline`: stored sources are used however old.
    let offline: Bool
    /// How strictly sources are decoded (part of the output key).
    let strictness: DecodeStrictness

    /// Serves a row whose source is known without reading or fetching it (a local file with
    /// an unchanged stamp, a fresh URL) and whose output is cached. `completion` hears the
    /// row's result, or nil when the row needs the pipeline; at once, or from another thread
    /// when an earlier row may still take the same output path (`OutputClaims`). A row still
    /// waiting when `isCancelled` turns true ends `cancelled` and copies nothing.
    func serve(_ request: ThumbnailRequest, isCancelled: @escaping @Sendable () -> Bool = { false },
               completion: @escaping @Sendable (RowResult?) -> Void) {
        let digest: String
        let origin: SourceOrigin
        switch request.source {
        case .file(let path):
            guard let known = cache.files.knownDigest(of: path) else { return completion(nil) }
            (digest, origin) = (known, .local)
        case .remote(let url):
            let plan = URLCachePolicy(cache: cache, maxAge: request.maxAge, offline: offline)
                .plan(for: url.absoluteString)
            guard case .useStored(let record) = plan else { return completion(nil) }
            (digest, origin) = (record.digest, .stored)
        }
        let key = OutputKey.make(sourceDigest: digest, request: request, strictness: strictness)
        guard let record = cache.output(key) else { return completion(nil) }
        let (mode, cache) = (mode, cache)
        delivery.deliver(record, for: request, rendered: false,
                         bytes: { cache.outputData(record, key: key) },
                         isWanted: { !isCancelled() }) { delivery in
            var result: RowResult
            switch delivery {
            case .done(let done): result = done
            case .failed(let failure):
                result = .failed(row: request.row, id: request.id, src: request.sourceText, failure)
                if failure.code == .cancelled { result.status = .cancelled }
            case .bytesMissing: return completion(nil)
            }
            mode.annotate(&result, origin: origin, digest: digest, fromCache: true)
            completion(result)
        }
    }

    /// Finishes `job` from the cache if its output is there; false when it must be rendered.
    /// A damaged cached output found while the decode waits is rendered instead; found after
    /// the row waited for its path, the row fails and the next run renders it.
    func serve(_ job: Job, sourceDigest digest: String) -> Bool {
        let key = OutputKey.make(sourceDigest: digest, request: job.request, strictness: strictness)
        guard let record = cache.output(key) else { return false }
        // Whether `deliver` has returned, and whether it found the bytes missing before that.
        let inline = Mutex((returned: false, missing: false))
        let cache = cache
        delivery.deliver(record, for: job.request, rendered: false,
                         bytes: { cache.outputData(record, key: key) },
                         isWanted: { !job.isFinished }) { delivery in
            if case .bytesMissing = delivery {
                let handled = inline.withLock { state -> Bool in
                    if !state.returned { state.missing = true }
                    return !state.returned
                }
                if handled { return }
            }
            switch delivery {
            case .done(let result):
                job.recordOutputFromCache()
                job.finish(result)
            case .failed(let failure):
                job.fail(failure)
            case .bytesMissing:
                job.fail(ThumbnailFailure(.writeFailed, "\(job.request.sourceText): the cached output "
                                          + "was damaged and has been dropped; the next run renders it"))
            }
        }
        let served = !inline.withLock { state -> Bool in
            state.returned = true
            return state.missing
        }
        if served { job.handOverToCache() }
        return served
    }

    /// Checks a stored source blob before it is decoded; when it is damaged, drops it and
    /// fetches the source again (returning the new bytes). Nil when the blob is sound.
    func checkStoredSource(_ digest: String, download: DownloadOperation?,
                           cancellation: Cancellation?) -> Result<FetchedSource?, FetchFailure>
    {
        if cache.blobs.verifyFile(digest) { return .success(nil) }
        guard let download else {
            return .failure(FetchFailure(error: .other("the cached copy is damaged"), attempts: 0, status: 0))
        }
        cache.urls.remove(download.url.absoluteString)
        if offline { return .failure(FetchFailure(error: .offline, attempts: 0, status: 0)) }
        return download.fetchAgain(cancellation: cancellation).map { Optional($0) }
    }
}
