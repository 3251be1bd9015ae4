import Foundation

/// What one URL source's responses leave in the cache: a body stored with its freshness,
/// a `304` that renews it, or nothing. Whether a stored body is used, revalidated or fetched
/// again is the planner's to say (`RowPlanner.sourceStep`).
///
/// The row's `max_age` narrows the HTTP rules (docs/manifest.md and docs/cache.md): `> 0` sets the
/// freshness lifetime whatever the headers say (`no-store` included: the row asked for it); `0`
/// goes by `Cache-Control` then `Expires`, else revalidates every run; `< 0` neither reads nor
/// stores the source (its outputs are still cached by the digest of what was fetched).
struct URLCachePolicy: Sendable {
    let cache: ThumbnailCache
    /// The row's `max_age`.
    let maxAge: Int

    /// Notes a `304` for `record`: the stored body is good for another lifetime, counted from
    /// now with the 304's own freshness headers. Returns the updated record.
    @discardableResult
    func revalidated(_ record: URLRecord, response: FetchResponse,
                     now: Double = Date().timeIntervalSince1970) -> URLRecord {
        var updated = record
        let freshness = HTTPFreshness(cacheControl: response.cacheControl, expires: response.expires,
                                      date: response.date, now: now)
        updated.storedAt = now
        updated.freshFor = freshness.freshFor
        updated.etag = response.etag ?? record.etag
        updated.lastModified = response.lastModified ?? record.lastModified
        if maxAge > 0 || freshness.storable {
            cache.urls.store(updated)
            cache.remote?.upload(url: updated, blob: nil)
        } else {
            cache.urls.remove(record.url)
        }
        return updated
    }

    /// Keeps a fetched body, at `file` in the cache's temporary folder, when the rules allow:
    /// the blob is a second name of `file`, which stays for the run to read. False when the body
    /// is not stored.
    @discardableResult
    func fetched(_ url: String, file: String, response: FetchResponse,
                 now: Double = Date().timeIntervalSince1970) -> Bool {
        let freshness = HTTPFreshness(cacheControl: response.cacheControl, expires: response.expires,
                                      date: response.date, now: now)
        guard maxAge >= 0, maxAge > 0 || freshness.storable, ContentDigest.isValid(response.sha256),
              cache.blobs.ingestLinked(file, digest: response.sha256) else {
            if maxAge >= 0 { cache.urls.remove(url) }
            return false
        }
        let record = URLRecord(url: url, digest: response.sha256, etag: response.etag,
                               lastModified: response.lastModified, storedAt: now, freshFor: freshness.freshFor)
        cache.urls.store(record)
        let blobs = cache.blobs
        cache.remote?.upload(url: record) { blobs.verifiedData(record.digest) }
        return true
    }
}
