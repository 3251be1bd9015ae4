import Foundation

/// How long a response may be reused, by the rules of a private HTTP cache (RFC 9111), as
/// the manifest's `max_age` column narrows them (docs/cache.md).
struct HTTPFreshness: Equatable {
    /// Whether the body may be stored at all (`no-store` says no).
    var storable: Bool
    /// Seconds it stays fresh; 0 means revalidate before each use.
    var freshFor: Double

    /// Reads `Cache-Control` (`no-store`, `no-cache`, `max-age`), else `Expires` (against the
    /// response's `Date`, else now). Without either the body is stored but revalidated on
    /// every run: docs/cache.md promises no heuristic freshness.
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
            guard let expiry = HTTPDate.parse(expires, now: now) else { return }
            let reference = date.flatMap { HTTPDate.parse($0, now: now) } ?? now
            freshFor = max(0, expiry - reference)
        }
    }
}
