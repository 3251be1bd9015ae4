import Foundation

/// How one remote source uses the cache: whether its stored body can be used as it is, must be
/// revalidated, or fetched; and what to keep of a response.
///
/// The row's `max_age` narrows the HTTP rules (README.md, Manifest and Cache): `> 0` sets the
/// freshness lifetime whatever the headers say (`no-store` included: the row asked for it); `0`
/// goes by `Cache-Control` then `Expires`, else revalidates every run; `< 0` neither reads nor
/// stores the source (its outputs are still cached by the digest of what was fetched).
struct URLCachePolicy: Sendable {
    let cache: ThumbnailCache
    /// The row's `max_age`.
    let maxAge: Int
    /// `--offline`: never fetch; a stored body is used however old it is.
    let offline: Bool

    /// What to do for the source.
    enum Plan: Equatable {
        /// The stored body is fresh (or the run is offline): no request.
        case useStored(URLRecord)
        /// The stored body is stale: ask the server with these conditional header lines.
        case revalidate(URLRecord, headers: [String])
        /// Nothing usable is stored: fetch the body.
        case fetch
        /// Offline, and nothing is stored.
        case unavailable
    }

    /// Decides what to do for `url` at time `now` (seconds since 1970).
    func plan(for url: String, now: Double = Date().timeIntervalSince1970) -> Plan {
        guard maxAge >= 0, let record = cache.urls.record(url), cache.blobs.contains(record.digest) else {
            return offline ? .unavailable : .fetch
        }
        if offline || record.isFresh(maxAge: maxAge, now: now) { return .useStored(record) }
        guard record.hasValidators else { return .fetch }
        var headers: [String] = []
        if let etag = record.etag { headers.append("If-None-Match: \(etag)") }
        if let lastModified = record.lastModified { headers.append("If-Modified-Since: \(lastModified)") }
        return .revalidate(record, headers: headers)
    }

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
        } else {
            cache.urls.remove(record.url)
        }
        return updated
    }

    /// Keeps a fetched body, at `file` in the cache's temporary folder, when the rules allow;
    /// returns the blob's path, or nil when the body is not to be stored (it stays at `file`).
    func fetched(_ url: String, file: String, response: FetchResponse,
                 now: Double = Date().timeIntervalSince1970) -> String? {
        let freshness = HTTPFreshness(cacheControl: response.cacheControl, expires: response.expires,
                                      date: response.date, now: now)
        guard maxAge >= 0, maxAge > 0 || freshness.storable, ContentDigest.isValid(response.sha256),
              let blob = cache.blobs.ingest(file, digest: response.sha256) else {
            if maxAge >= 0 { cache.urls.remove(url) }
            return nil
        }
        cache.urls.store(URLRecord(url: url, digest: response.sha256, etag: response.etag,
                                   lastModified: response.lastModified, storedAt: now,
                                   freshFor: freshness.freshFor))
        return blob
    }
}
