import Foundation

/// Decides each row's fate, in one place: from the row, and what the cache and `--out` hold,
/// to a `RowPlan` with its reasons. A render run, `warm` and `--dry-run` carry out (or only
/// report) the plans it makes, and `explain` prints them; nothing else decides.
///
/// A run's planner never reads a source: a local file whose stamp is not on record is planned
/// `read`, and the run plans the row again (`plan(_:identified:)`) once its stage has hashed
/// it. A planner that only looks (`--dry-run`, `explain`) hashes such a file itself, so that
/// what it reports is what a run would do; it writes nothing, marks nothing used and drops
/// nothing it finds damaged.
struct RowPlanner: Sendable {
    /// The cache; nil with `--no-cache`.
    let cache: ThumbnailCache?
    /// `--out`; nil for `warm`.
    let outputDirectory: URL?
    /// The input limit and the decode strictness (part of the output key).
    let limits: ImagingLimits
    /// `--offline`: stored sources are used however old, and nothing is fetched.
    let offline: Bool
    /// The clock, in seconds since 1970.
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// Whether this planner only looks (`--dry-run`, `explain`).
    var looksOnly: Bool { cache?.layout.looksOnly ?? true }

    /// A source whose bytes a run has in hand: their digest, and how they were got.
    struct Identified: Sendable {
        var digest: String
        var origin: SourceOrigin
    }

    /// The plan for `request` before any work.
    func plan(_ request: ThumbnailRequest) -> RowPlan {
        switch request.source {
        case .file(let path): planLocal(request, path: path)
        case .remote(let url): planRemote(request, url: url.absoluteString)
        }
    }

    /// The plan for `request` once its source's bytes are in hand.
    func plan(_ request: ThumbnailRequest, identified: Identified) -> RowPlan {
        var plan = RowPlan(action: .render, step: nil, sourceDigest: identified.digest,
                           origin: identified.origin)
        plan.reasons.append("the source's bytes are in hand (\(Self.describe(identified.origin))): "
                            + "sha256 \(identified.digest.prefix(12))…")
        return planOutput(request, plan)
    }

    /// A local file: checked, then identified by its stamp, else (looking only) by reading it.
    private func planLocal(_ request: ThumbnailRequest, path: String) -> RowPlan {
        var plan = RowPlan(action: .render, step: .local, origin: .local)
        if let failure = LocalFileCheck.failure(path: path, src: request.sourceText,
                                                maxBytes: limits.maxInputBytes) {
            return RowPlan(action: .fail, reasons: [failure.message], failure: failure)
        }
        guard let cache else {
            plan.reasons.append("no cache (--no-cache): the output is rendered")
            return plan
        }
        plan.cachedSource = .stampNotOnRecord
        if let known = cache.files.knownDigest(of: path) {
            plan.cachedSource = .stampUnchanged
            plan.sourceDigest = known
            plan.reasons.append("the file's stamp (device, inode, size, mtime) is unchanged since it "
                                + "was hashed: sha256 \(known.prefix(12))…")
        } else if looksOnly, let hashed = cache.files.digest(of: path) {
            plan.sourceDigest = hashed.digest
            plan.reasons.append("the file's stamp is not on record (new or changed file); read "
                                + "to hash it: sha256 \(hashed.digest.prefix(12))…")
        } else {
            plan.action = .read
            plan.reasons.append("the file's stamp is not on record (new or changed file): it is "
                                + "hashed before the cache is asked")
            return plan
        }
        return planOutput(request, plan)
    }

    /// A URL: by what the cache stores of it, and the row's `max_age` (README.md, Cache).
    private func planRemote(_ request: ThumbnailRequest, url: String) -> RowPlan {
        var plan = RowPlan(action: .fetch, step: .fetch)
        guard let cache else {
            plan.reasons.append("no cache (--no-cache): the source is downloaded")
            return plan
        }
        let decision = sourceStep(url: url, maxAge: request.maxAge, cache: cache)
        plan.cachedSource = request.maxAge < 0 ? .neverStored : decision.freshness == nil ? .urlNotStored : .urlStored
        plan.reasons += decision.reasons
        plan.freshness = decision.freshness
        switch decision.step {
        case nil:
            let failure = ThumbnailFailure(.notCached, "\(request.sourceText): not in the cache (--offline)")
            return RowPlan(action: .fail, reasons: plan.reasons + [failure.message], failure: failure)
        case .fetch?:
            return plan
        case .revalidate?:
            plan.action = .revalidate
            plan.step = decision.step
            return plan
        case .stored(let record)?:
            plan.step = decision.step
            plan.sourceDigest = record.digest
            plan.origin = .stored
            var planned = planOutput(request, plan)
            // A render reads the stored body; a damaged one is dropped and fetched again.
            if looksOnly, planned.action == .render, !cache.blobs.verifyFile(record.digest) {
                planned.action = .fetch
                planned.step = .fetch
                planned.reasons.append("the stored body is damaged: it is downloaded again")
            }
            return planned
        case .local?:
            return plan  // not a URL's step
        }
    }

    /// How a URL's bytes are got, as the row's `max_age` and `--offline` allow; nil when they
    /// cannot be (offline, nothing stored). The download stage asks again when it finds the
    /// stored body damaged.
    func sourceStep(url: String, maxAge: Int, cache: ThumbnailCache)
        -> (step: RowPlan.SourceStep?, reasons: [String], freshness: RowPlan.Freshness?)
    {
        guard maxAge >= 0 else {
            return (offline ? nil : .fetch, ["max_age \(maxAge): the source is never read from the cache"], nil)
        }
        guard let record = cache.urls.record(url) else {
            return (offline ? nil : .fetch, ["the cache holds no body for this URL"], nil)
        }
        guard cache.blobs.contains(record.digest) else {
            return (offline ? nil : .fetch, ["the cache's record names a body that is gone"], nil)
        }
        let age = now() - record.storedAt
        let fromRow = maxAge > 0
        let freshness = RowPlan.Freshness(
            age: age, lifetime: fromRow ? Double(maxAge) : record.freshFor,
            lifetimeFrom: fromRow ? "max_age" : "headers",
            fresh: record.isFresh(maxAge: maxAge, now: now()), hasValidators: record.hasValidators)
        let arithmetic = "stored \(Self.seconds(age)) ago, fresh for \(Self.seconds(freshness.lifetime)) "
            + (fromRow ? "(max_age)" : "(the response's Cache-Control or Expires)")
        if freshness.fresh {
            return (.stored(record), [arithmetic + ": fresh, no request"], freshness)
        }
        if offline {
            return (.stored(record), [arithmetic + ": stale, but --offline uses it"], freshness)
        }
        guard record.hasValidators else {
            return (.fetch, [arithmetic + ": stale, and without a validator it is downloaded again"], freshness)
        }
        var headers: [String] = []
        if let etag = record.etag { headers.append("If-None-Match: \(etag)") }
        if let lastModified = record.lastModified { headers.append("If-Modified-Since: \(lastModified)") }
        return (.revalidate(record, headers: headers),
                [arithmetic + ": stale; the server is asked (\(headers.joined(separator: ", ")))"], freshness)
    }

    /// With the source's digest known: keep, copy or render the output.
    private func planOutput(_ request: ThumbnailRequest, _ plan: RowPlan) -> RowPlan {
        var plan = plan
        guard let cache, let digest = plan.sourceDigest else { return plan }
        let key = OutputKey(sourceDigest: digest, request: request, strictness: limits.strictness)
        plan.key = key
        let record: OutputRecord
        switch cache.outputs.lookup(key.digest) {
        case .absent:
            plan.cached = .absent
            plan.action = .render
            plan.reasons.append("no cached output under key \(key.digest.prefix(12))…: it is rendered")
            return plan
        case .damaged:
            plan.cached = .damagedRecord
            plan.action = .render
            plan.reasons.append("the cached output's record is damaged: it is rendered again")
            return plan
        case .found(let found):
            record = found
        }
        plan.output = record
        if let outputDirectory {
            switch OutputDelivery.path(of: record, for: request) {
            case .failure(let failure):
                return RowPlan(action: .fail, reasons: plan.reasons + [failure.message], failure: failure)
            case .success(let path):
                plan.path = path
                let holds = AtomicFileWriter.fileHolds(outputDirectory.appendingPathComponent(path).path,
                                                       sha256: record.sha256, size: record.bytes)
                plan.outHolds = holds
                if holds {
                    plan.cached = .present
                    plan.action = .keep
                    plan.reasons.append("--out holds the cached output at \(path): nothing is written")
                    return plan
                }
            }
        }
        // The bytes are checked before they are trusted: for a copy, and for `warm`, which
        // repairs what it finds damaged.
        guard let bytes = cache.outputData(record, key: key.digest) else {
            plan.cached = .damagedBytes
            plan.action = .render
            plan.reasons.append("the cached output's bytes are missing or damaged: it is rendered again")
            return plan
        }
        plan.cached = .present
        if outputDirectory == nil {
            plan.action = .keep
            plan.reasons.append("the cache holds the output, sound: nothing to do")
        } else {
            plan.action = .copy
            plan.bytes = bytes
            plan.reasons.append("the cache holds the output: it is copied to \(plan.path ?? "--out")")
        }
        return plan
    }

    private static func describe(_ origin: SourceOrigin) -> String {
        switch origin {
        case .local: "hashed the local file"
        case .stored: "the cache's stored body"
        case .revalidated: "the server answered 304 Not Modified"
        case .fetched: "downloaded"
        }
    }

    /// Seconds as people read them: `42 s`, `3.2 h`.
    static func seconds(_ value: Double) -> String {
        switch abs(value) {
        case ..<120: String(format: "%.0f s", value)
        case ..<7200: String(format: "%.1f min", value / 60)
        case ..<172_800: String(format: "%.1f h", value / 3600)
        default: String(format: "%.1f d", value / 86400)
        }
    }
}
