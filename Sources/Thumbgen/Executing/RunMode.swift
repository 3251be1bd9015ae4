/// What kind of run this is, as far as its results tell: without a cache (`none`), a render
/// with one (`cache`: results carry `cache` and `source_sha256`), or `thumbgen warm` (`warm`:
/// `warm` as well).
enum RunMode: Sendable {
    case none, cache, warm

    /// Fills in the cache fields of `result` from what the row's stages recorded. `verdict`: the
    /// row failed by the cache's verdict (`RowPlan.failsFromCache`), which the cache served as
    /// it serves an output.
    func annotate(_ result: inout RowResult, origin: SourceOrigin?, digest: String?, fromCache: Bool,
                  verdict: Bool = false) {
        guard self != .none else { return }
        result.sourceSHA256 = result.sourceSHA256 ?? digest
        // A dropped row's output was made or found like any other; only its placing was not.
        let succeeded = result.status == .written || result.status == .unchanged || result.status == .dropped
        if succeeded || (verdict && result.status == .failed) {
            result.cache = !fromCache ? .miss : origin == .revalidated ? .revalidated : .hit
        }
        guard self == .warm, result.status != .cancelled else { return }
        if !succeeded {
            result.warm = .failed
        } else if !fromCache {
            result.warm = .rendered
        } else {
            switch origin {
            case .fetched: result.warm = .fetched
            case .revalidated: result.warm = .revalidated
            default: result.warm = .fresh
            }
        }
    }
}
