import Foundation

/// Makes `Explanation`s with a planner that only looks.
public struct Explainer: Sendable {
    private let planner: RowPlanner

    /// An explainer for runs configured by `configuration`, whose cache should be opened
    /// `lookingAt:` (nil: no cache, or none there yet).
    public init(configuration: PipelineConfiguration) {
        var planner = RowPlanner(cache: configuration.cache, outputDirectory: configuration.outputDirectory,
                                 limits: configuration.limits, offline: configuration.offline)
        planner.explains = true
        self.planner = planner
    }

    /// The explanation for a manifest record that did not even split into cells.
    public func explain(_ error: RowError) -> Explanation {
        failed(row: error.row, id: String(error.row), src: "", ThumbnailFailure(error))
    }

    /// The explanation for `record`, parsed by `parser` (a row it refuses is planned `fail`).
    public func explain(_ record: ManifestRecord, parser: RowParser) -> Explanation {
        switch parser.parse(record) {
        case .success(let request):
            return explain(request)
        case .failure(let error):
            return failed(row: record.line, id: record.values[.id] ?? String(record.line),
                          src: SourceLogin.split(record.values[.src] ?? "").shown, ThumbnailFailure(error))
        }
    }

    private func failed(row: Int, id: String, src: String, _ failure: ThumbnailFailure) -> Explanation {
        Explanation(row: row, id: id, src: src, plan: "fail", reasons: [failure.message],
                    error: RowResult.Failure(code: failure.code, message: failure.message))
    }

    /// The explanation for `request`.
    public func explain(_ request: ThumbnailRequest) -> Explanation {
        let plan = planner.plan(request)
        var explanation = Explanation(
            row: request.row, id: request.id, src: request.sourceText, plan: plan.action.rawValue,
            reasons: plan.reasons,
            error: plan.failure.map { RowResult.Failure(code: $0.code, message: $0.message) })
        if let freshness = plan.freshness {
            explanation.freshness = .init(age: freshness.age, lifetime: freshness.lifetime,
                                          lifetime_from: freshness.lifetimeFrom, fresh: freshness.fresh,
                                          has_validators: freshness.hasValidators)
        }
        if let key = request.urlIdentity {
            explanation.identity = .init(key: key, from: request.sourceKey.map { $0.fromColumn ? "source_key" : "ignore_query" } ?? "url",
                                         dropped: request.sourceKey?.dropped ?? [])
        }
        if let path = plan.path, let holds = plan.outHolds { explanation.out = .init(path: path, holds: holds) }
        // A row the cache's verdict fails has its key and cache state as a served row has.
        guard let cache = planner.cache, plan.action != .fail || plan.failsFromCache else { return explanation }
        explanation.cache = .init(output: plan.cached?.rawValue, source: plan.cachedSource?.rawValue ?? "-")
        // A URL to fetch or revalidate: the key its stored body would give, if one is stored.
        var key = plan.key
        var keySource = "known"
        if key == nil, let identity = request.urlIdentity, let stored = cache.urls.record(identity) {
            key = OutputKey(sourceDigest: stored.digest, request: request, strictness: planner.limits.strictness)
            keySource = "stored"
        }
        guard let key else { return explanation }
        explanation.key = .init(digest: key.digest, parts: key.parts.map { .init(name: $0.name, value: $0.value) },
                                source: keySource)
        if plan.cached != .present, plan.cached != .overBudget {
            explanation.changed = change(of: key, among: cache.recipes.keys(for: request))
        }
        return explanation
    }

    /// The parts in which `key` differs from the nearest of `stored` (fewest parts differing;
    /// the newest among equals); nil when nothing is stored or `key` is among them.
    private func change(of key: OutputKey, among stored: [OutputKey]) -> Explanation.Change? {
        guard !stored.contains(key) else { return nil }
        let candidates = stored.reversed().map { ($0, key.changedParts(since: $0)) }
        guard let (nearest, names) = candidates.min(by: { $0.1.count < $1.1.count }) else { return nil }
        return .init(since: nearest.digest,
                     parts: names.map { .init(name: $0, was: nearest[$0], now: key[$0]) })
    }
}
