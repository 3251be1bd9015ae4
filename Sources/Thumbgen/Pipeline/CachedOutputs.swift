import Foundation

/// Serves rows from the cache: the check that decides "up to date" before a row becomes a job
/// (no operation, no connection, no decode), and the same check inside a source's decode once
/// its digest is known (after a `304`, or after hashing a changed local file).
struct CachedOutputs: Sendable {
    let cache: ThumbnailCache
    let delivery: OutputDelivery
    let reporting: CacheReporting
    /// `--offline`: stored sources are used however old.
    let offline: Bool
    /// How strictly sources are decoded (part of the output key).
    let strictness: DecodeStrictness

    /// The result of a row whose source is known without reading or fetching it (a local file
    /// with an unchanged stamp, a fresh URL) and whose output is cached; nil when the row
    /// needs the pipeline.
    func result(for request: ThumbnailRequest) -> RowResult? {
        let digest: String
        let origin: SourceOrigin
        switch request.source {
        case .file(let path):
            guard let known = cache.files.knownDigest(of: path) else { return nil }
            (digest, origin) = (known, .local)
        case .remote(let url):
            let plan = RemoteSourceCache(cache: cache, maxAge: request.maxAge, offline: offline)
                .plan(for: url.absoluteString)
            guard case .useStored(let record) = plan else { return nil }
            (digest, origin) = (record.digest, .stored)
        }
        let key = OutputKey.make(sourceDigest: digest, request: request, strictness: strictness)
        guard let record = cache.output(key) else { return nil }
        var result: RowResult
        switch delivery.deliver(record, for: request, rendered: false,
                                bytes: { cache.outputData(record, key: key) }) {
        case .done(let done): result = done
        case .failed(let failure):
            result = .failed(row: request.row, id: request.id, src: request.sourceText, failure)
        case .bytesMissing: return nil
        }
        reporting.annotate(&result, origin: origin, digest: digest, fromCache: true)
        return result
    }

    /// Finishes `job` from the cache if its output is there; false when it must be rendered.
    func serve(_ job: Job, sourceDigest digest: String) -> Bool {
        let key = OutputKey.make(sourceDigest: digest, request: job.request, strictness: strictness)
        guard let record = cache.output(key) else { return false }
        switch delivery.deliver(record, for: job.request, rendered: false,
                                bytes: { cache.outputData(record, key: key) }) {
        case .done(let result):
            job.recordOutputFromCache()
            job.finish(result)
            return true
        case .failed(let failure):
            job.fail(failure)
            return true
        case .bytesMissing:
            return false
        }
    }

    /// Checks a stored source blob before it is decoded; when it is damaged, drops it and
    /// fetches the source again (returning the new bytes). Nil when the blob is sound.
    func checkStoredSource(_ digest: String, download: DownloadOperation?)
        -> Result<Downloaded?, FetchFailure>
    {
        if cache.blobs.verifyFile(digest) { return .success(nil) }
        guard let download else {
            return .failure(FetchFailure(error: .other("the cached copy is damaged"), attempts: 0, status: 0))
        }
        cache.urls.remove(download.url.absoluteString)
        if offline { return .failure(FetchFailure(error: .offline, attempts: 0, status: 0)) }
        return download.fetchAgain().map { Optional($0) }
    }
}
