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

/// URL records, by SHA-256 of the URL.
struct URLIndex: Sendable {
    let layout: CacheLayout

    private func path(_ url: String) -> String { layout.path(.urls, Self.name(for: url)) }

    /// The record for `url`, or nil when there is none (a damaged one is removed).
    func record(_ url: String) -> URLRecord? {
        let path = path(url)
        guard let (bytes, _) = layout.read(path) else { return nil }
        guard let record = CacheRecord(decoding: bytes).flatMap(Self.decode), record.url == url else {
            layout.remove(path)
            return nil
        }
        return record
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

    /// Stores `record` (replacing any for its URL).
    func store(_ record: URLRecord) {
        var entry = CacheRecord()
        entry["url"] = record.url
        entry["digest"] = record.digest
        entry["etag"] = record.etag
        entry["last-modified"] = record.lastModified
        entry["stored-at"] = String(record.storedAt)
        entry["fresh-for"] = String(record.freshFor)
        layout.write(entry.encoded, to: path(record.url))
    }

    /// Forgets `url` (its body may not be stored, or its blob was damaged).
    func remove(_ url: String) {
        layout.remove(path(url))
    }
}

/// How long a response may be reused, by the rules of a private HTTP cache (RFC 9111), as
/// the manifest's `max_age` column narrows them (README.md, Cache).
struct HTTPFreshness: Equatable {
    /// Whether the body may be stored at all (`no-store` says no).
    var storable: Bool
    /// Seconds it stays fresh; 0 means revalidate before each use.
    var freshFor: Double

    /// Reads `Cache-Control` (`no-store`, `no-cache`, `max-age`), else `Expires` (against the
    /// response's `Date`, else now). Without either the body is stored but revalidated on
    /// every run: README.md (Cache) promises no heuristic freshness.
    init(cacheControl: String?, expires: String?, date: String?, now: Double) {
        storable = true
        freshFor = 0
        var maxAge: Double?
        var noCache = false
        for directive in (cacheControl ?? "").split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let value = parts.count > 1
                ? parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                : nil
            switch name {
            case "no-store": storable = false
            case "no-cache": noCache = true
            case "max-age": maxAge = value.flatMap(Double.init).map { max(0, $0) } ?? 0
            default: break
            }
        }
        if noCache { return }
        if let maxAge {
            freshFor = maxAge
        } else if let expires {
            // An Expires that does not parse (such as "0") means already expired.
            guard let expiry = HTTPDate.parse(expires) else { return }
            let reference = date.flatMap(HTTPDate.parse) ?? now
            freshFor = max(0, expiry - reference)
        }
    }
}
