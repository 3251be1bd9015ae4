import Foundation

/// What the cache knows of one URL: the digest of the body it last served, its validators,
/// and how long that body stays fresh.
struct URLRecord: Sendable, Equatable {
    var url: String
    /// The SHA-256 of the body: the blob holding it.
    var digest: String
    /// Validators for a conditional request.
    var etag: String?
    var lastModified: String?
    /// When the body was last fetched or revalidated (seconds since 1970).
    var storedAt: Double
    /// Seconds the body stays fresh after `storedAt`, from the response's headers; 0 means
    /// revalidate on every run.
    var freshFor: Double

    /// Whether the body may be used without asking the server, for a row with `maxAge`: a
    /// positive `max_age` overrides the headers; 0 goes by them.
    func isFresh(maxAge: Int, now: Double) -> Bool {
        let age = now - storedAt
        guard age >= 0 else { return false }  // a clock that went back: ask again
        return maxAge > 0 ? age < Double(maxAge) : age < freshFor
    }

    /// Whether a conditional request can be made.
    var hasValidators: Bool { etag != nil || lastModified != nil }
}

/// URL records: the `urls` table of the cache's database. The remote cache keeps them as
/// records of their own (`entry`, `decode`), named by the SHA-256 of the URL (`name`).
struct URLIndex: Sendable {
    let index: IndexDatabase
    let uses: UseLog
    /// Whether reading a record is not using it (`--dry-run`, `explain`).
    let looksOnly: Bool

    /// The record for `url`, or nil when there is none or it is unsound (left for the fetch
    /// that replaces it, or `cache verify`: a lookup deletes nothing). Noted as used (`UseLog`).
    func record(_ url: String) -> URLRecord? {
        var found: URLRecord?
        var lastUsed = 0.0
        index.query("SELECT digest, etag, last_modified, stored_at, fresh_for, last_used FROM urls WHERE url = ?",
                    [.text(url)]) { row in
            guard let digest = row.text(0), ContentDigest.isValid(digest) else { return }
            found = URLRecord(url: url, digest: digest, etag: row.text(1), lastModified: row.text(2),
                              storedAt: row.real(3), freshFor: row.real(4))
            lastUsed = row.real(5)
        }
        if found != nil { uses.used(url: url, lastUsed: lastUsed, looksOnly: looksOnly) }
        return found
    }

    /// The URL record `entry` holds, or nil when a field is missing or malformed.
    static func decode(_ entry: CacheRecord) -> URLRecord? {
        guard let url = entry["url"], let digest = entry["digest"], ContentDigest.isValid(digest),
              let storedAt = entry["stored-at"].flatMap(Double.init),
              let freshFor = entry["fresh-for"].flatMap(Double.init) else { return nil }
        return URLRecord(url: url, digest: digest, etag: entry["etag"],
                         lastModified: entry["last-modified"], storedAt: storedAt, freshFor: freshFor)
    }

    /// The entry name a record for `url` is stored under.
    static func name(for url: String) -> String { ContentDigest.of(text: url) }

    /// Stores `record` (replacing any for its URL), used now.
    func store(_ record: URLRecord) {
        index.execute("""
            INSERT OR REPLACE INTO urls (url, digest, etag, last_modified, stored_at, fresh_for, last_used)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(record.url), .text(record.digest), record.etag.map { .text($0) } ?? .null,
                  record.lastModified.map { .text($0) } ?? .null, .real(record.storedAt),
                  .real(record.freshFor), .real(Date().timeIntervalSince1970)])
    }

    /// The record's fields, as `decode` reads them.
    static func entry(_ record: URLRecord) -> CacheRecord {
        var entry = CacheRecord()
        entry["url"] = record.url
        entry["digest"] = record.digest
        entry["etag"] = record.etag
        entry["last-modified"] = record.lastModified
        entry["stored-at"] = String(record.storedAt)
        entry["fresh-for"] = String(record.freshFor)
        return entry
    }

    /// Forgets `url` (its body may not be stored, or its blob was damaged).
    func remove(_ url: String) {
        index.execute("DELETE FROM urls WHERE url = ?", [.text(url)])
    }
}
