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
///
/// Nor does a planner ask the remote cache: where the local cache lacks an entry that a remote
/// may hold, it plans `askRemote` with the question, the executor asks it (`RemoteAsking`)
/// and plans the row again with the question in `remoteAsked`.
struct RowPlanner: Sendable {
    /// The cache; nil with `--no-cache`.
    let cache: ThumbnailCache?
    /// `--out`; nil for `warm`.
    let outputDirectory: URL?
    /// `--out`'s path with a slash: outputs' paths are joined to it as text, because
    /// Foundation's `URL` joins cost more than the rest of a warm row's planning.
    private let outputFolder: String?
    /// The input limit and the decode strictness (part of the output key).
    let limits: ImagingLimits
    /// `--offline`: stored sources are used however old, and nothing is fetched.
    let offline: Bool
    /// The clock, in seconds since 1970.
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    /// Whether plans carry their reasons (`explain`): text a run and a dry run never read, and
    /// would pay for on every row of a warm run.
    var explains = false

    /// Whether plans carry placeholders (a row the warm journal keeps then takes its entry's).
    var readsPlaceholders = false
    /// Whether the run makes placeholders: a cached output whose record owes its source's
    /// (`OutputRecord.owesPlaceholder`) is then rendered again, to make it.
    var fillsPlaceholders = false
    /// The warm journal of `--out` (`RowPlanner+Journal.swift`): a row it vouches for is
    /// planned `keep` on `stat`s alone; nil without a cache or an `--out`, and for `explain`.
    var journal: WarmJournal?
    /// What the executor has already asked the remote cache for this row: the planner then
    /// plans from what the local cache holds now, as if the remote had nothing more.
    var remoteAsked: Set<RemoteQuery> = []

    /// A planner over `cache` (nil: `--no-cache`) and `outputDirectory` (nil: `warm`), with the
    /// run's `limits` and `--offline`; `journaled` opens `--out`'s warm journal in the cache
    /// (read and written by a run, only read by a cache that only looks).
    init(cache: ThumbnailCache?, outputDirectory: URL?, limits: ImagingLimits, offline: Bool,
         journaled: Bool = false) {
        self.cache = cache
        self.outputDirectory = outputDirectory
        self.limits = limits
        self.offline = offline
        outputFolder = outputDirectory.map { $0.path.hasSuffix("/") ? $0.path : $0.path + "/" }
        if journaled, let cache, let outputDirectory {
            journal = WarmJournal(cache: cache, outputDirectory: outputDirectory)
        }
    }

    /// Whether this planner only looks (`--dry-run`, `explain`).
    var looksOnly: Bool { cache?.layout.looksOnly ?? true }

    /// Whether a plan may ask the remote cache `query`: there is one to ask (never for a
    /// planner that only looks), and the executor has not asked it yet for this row.
    private func mayAsk(_ query: RemoteQuery) -> Bool {
        cache?.bodiesMayBeRemote == true && !remoteAsked.contains(query)
    }

    /// `plan`, turned into a question for the remote cache.
    private func askRemote(_ query: RemoteQuery, _ plan: RowPlan) -> RowPlan {
        var plan = plan
        plan.action = .askRemote
        plan.remoteQuery = query
        return plan
    }

    /// A source whose bytes a run has in hand: their digest, and how they were got.
    struct Identified: Sendable {
        var digest: String
        var origin: SourceOrigin
    }

    /// The plan for `request` before any work.
    func plan(_ request: ThumbnailRequest) -> RowPlan {
        var memo = LocalSourceMemo()
        return plan(request, memo: &memo)
    }

    /// The plan for `request` before any work, reusing what `memo` learned of the same local
    /// source on the row planned just before (`LocalSourceMemo`).
    func plan(_ request: ThumbnailRequest, memo: inout LocalSourceMemo) -> RowPlan {
        switch request.source {
        case .file(let path): planLocal(request, path: path, memo: &memo)
        case .url(let url): planURL(request, url: request.sourceKey?.identity ?? url.absoluteString)
        }
    }

    /// The plan for `request` once its source's bytes are in hand.
    func plan(_ request: ThumbnailRequest, identified: Identified) -> RowPlan {
        var plan = RowPlan(action: .render, step: nil, sourceDigest: identified.digest,
                           origin: identified.origin)
        note(&plan, "the source's bytes are in hand (\(Self.describe(identified.origin))): "
                            + "sha256 \(identified.digest.prefix(12))…")
        return planOutput(request, plan)
    }

    /// A local file: checked, then identified by its stamp (the journal's, else the file
    /// index's), else (looking only) by reading it.
    private func planLocal(_ request: ThumbnailRequest, path: String, memo: inout LocalSourceMemo) -> RowPlan {
        var plan = RowPlan(action: .render, step: .local, origin: .local)
        let info: stat
        switch memo.check(path: path, src: request.sourceText, maxBytes: limits.maxInputBytes) {
        case .failure(let failure): return RowPlan(action: .fail, reasons: [failure.message], failure: failure)
        case .success(let found): info = found
        }
        guard let cache else {
            note(&plan, "no cache (--no-cache): the output is rendered")
            return plan
        }
        if !explains, let journaled = journalPlan(request, path: path, stat: info, plan: plan, memo: &memo) {
            return journaled
        }
        plan.cachedSource = .stampNotOnRecord
        if let known = cache.files.knownEntry(of: path, stat: info) {
            plan.cachedSource = .stampUnchanged
            plan.sourceDigest = known.digest
            note(&plan, "the file's stamp (device, inode, size, mtime) is unchanged since it "
                                + "was hashed: sha256 \(known.digest.prefix(12))…")
            return planOutput(request, plan, source: journalSource(path: path, stat: info, digest: known.digest,
                                                                   written: known.written))
        } else if looksOnly, let hashed = cache.files.digest(of: path) {
            plan.sourceDigest = hashed.digest
            note(&plan, "the file's stamp is not on record (new or changed file); read "
                                + "to hash it: sha256 \(hashed.digest.prefix(12))…")
        } else {
            plan.action = .read
            note(&plan, "the file's stamp is not on record (new or changed file): it is "
                                + "hashed before the cache is asked")
            return plan
        }
        return planOutput(request, plan)
    }

    /// A URL: by what the cache stores of it, and the row's `max_age` (docs/cache.md).
    private func planURL(_ request: ThumbnailRequest, url: String) -> RowPlan {
        var plan = RowPlan(action: .fetch, step: .fetch)
        guard let cache else {
            // Offline without a cache (a dry run before any run made one): nothing is stored.
            if offline { return notCached(request, reasons: ["the cache is empty"]) }
            note(&plan, "no cache (--no-cache): the source is downloaded")
            return plan
        }
        let decision = sourceStep(url: url, maxAge: request.maxAge, cache: cache)
        if let query = decision.ask { return askRemote(query, plan) }
        plan.cachedSource = request.maxAge < 0 ? .neverStored : decision.freshness == nil ? .urlNotStored : .urlStored
        plan.reasons += decision.reasons
        plan.freshness = decision.freshness
        switch decision.step {
        case nil:
            return notCached(request, reasons: plan.reasons)
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
            // A body the remote cache still holds is brought here only now that a render
            // needs it; one it cannot give is downloaded.
            if cache.bodiesMayBeRemote, planned.action == .render, !cache.blobs.contains(record.digest) {
                if mayAsk(.body(digest: record.digest)) { return askRemote(.body(digest: record.digest), planned) }
                planned.action = .fetch
                planned.step = .fetch
                note(&planned, "the stored body is neither here nor on the remote cache: it is downloaded")
            }
            // A render reads the stored body, which the run checks first: a damaged one is
            // dropped and the row planned again, to be fetched (or to fail, offline).
            if looksOnly, planned.action == .render, !cache.blobs.verifyFile(record.digest) {
                let reason = "the stored body is damaged: it is dropped"
                if offline { return notCached(request, reasons: planned.reasons + [reason]) }
                planned.action = .fetch
                planned.step = .fetch
                note(&planned, reason + " and downloaded again")
            }
            return planned
        case .local?:
            return plan  // not a URL's step
        }
    }

    /// Adds `reason` to `plan` when plans are explained.
    private func note(_ plan: inout RowPlan, _ reason: @autoclosure () -> String) {
        if explains { plan.reasons.append(reason()) }
    }

    /// The plan of a URL row that `--offline` cannot serve.
    private func notCached(_ request: ThumbnailRequest, reasons: [String]) -> RowPlan {
        let failure = ThumbnailFailure(.notCached, "\(request.sourceText): not in the cache (--offline)")
        return RowPlan(action: .fail, reasons: reasons + [failure.message], failure: failure)
    }

    /// How a URL's bytes are got, as the row's `max_age` and `--offline` allow; nil when they
    /// cannot be (offline, nothing stored).
    /// `ask` is set instead when the remote cache must be asked first.
    private func sourceStep(url: String, maxAge: Int, cache: ThumbnailCache)
        -> (step: RowPlan.SourceStep?, reasons: [String], freshness: RowPlan.Freshness?, ask: RemoteQuery?)
    {
        func why(_ reason: @autoclosure () -> String) -> [String] { explains ? [reason()] : [] }
        guard maxAge >= 0 else {
            return (offline ? nil : .fetch, why("max_age \(maxAge): the source is never read from the cache"), nil, nil)
        }
        guard let record = cache.urls.record(url) else {
            if mayAsk(.url(url)) { return (nil, [], nil, .url(url)) }
            return (offline ? nil : .fetch, why("the cache holds no body for this URL"), nil, nil)
        }
        // With a remote cache, the body may be there only: a fresh record is used without
        // it, and the body is brought when a row needs its bytes.
        let bodyHere = cache.blobs.contains(record.digest)
        guard bodyHere || cache.bodiesMayBeRemote else {
            return (offline ? nil : .fetch, why("the cache's record names a body that is gone"), nil, nil)
        }
        let age = now() - record.storedAt
        let fromRow = maxAge > 0
        let freshness = RowPlan.Freshness(
            age: age, lifetime: fromRow ? Double(maxAge) : record.freshFor,
            lifetimeFrom: fromRow ? "max_age" : "headers",
            fresh: record.isFresh(maxAge: maxAge, now: now()), hasValidators: record.hasValidators)
        func arithmetic() -> String {
            "stored \(Self.seconds(age)) ago, fresh for \(Self.seconds(freshness.lifetime)) "
                + (fromRow ? "(max_age)" : "(the response's Cache-Control or Expires)")
        }
        if freshness.fresh {
            return (.stored(record), why(arithmetic() + ": fresh, no request"), freshness, nil)
        }
        if offline {
            return (.stored(record), why(arithmetic() + ": stale, but --offline uses it"), freshness, nil)
        }
        if !bodyHere, mayAsk(.body(digest: record.digest)) { return (nil, [], nil, .body(digest: record.digest)) }
        guard bodyHere else {
            return (.fetch, why(arithmetic() + ": stale, and the body is neither here nor on the remote cache"),
                    freshness, nil)
        }
        var headers: [String] = []
        if let etag = record.etag { headers.append("If-None-Match: \(etag)") }
        // Sent as an IMF-fixdate, the one form a sender may use, whichever form the server's
        // Last-Modified had; one that is no HTTP date at all is not sent.
        if let since = record.lastModified.flatMap({ HTTPDate.parse($0) }).flatMap(HTTPDate.format) {
            headers.append("If-Modified-Since: \(since)")
        }
        guard !headers.isEmpty else {
            return (.fetch, why(arithmetic() + ": stale, and without a validator it is downloaded again"), freshness, nil)
        }
        return (.revalidate(record, headers: headers),
                why(arithmetic() + ": stale; the server is asked (\(headers.joined(separator: ", ")))"), freshness, nil)
    }

    /// With the source's digest known: keep, copy or render the output (under `key`, when the
    /// caller has made it). `source` is what the journal needs to note a `keep` (a local file
    /// identified by its stamp), else nil.
    func planOutput(_ request: ThumbnailRequest, _ plan: RowPlan, key: OutputKey? = nil,
                    source: JournalSource? = nil) -> RowPlan {
        var plan = plan
        guard let cache, let digest = plan.sourceDigest else { return plan }
        let key = key ?? OutputKey(sourceDigest: digest, request: request, strictness: limits.strictness)
        plan.key = key
        let record: OutputRecord
        let (lookup, recordStamp) = cache.outputs.lookupStamped(key.digest)
        let remoteQuery = RemoteQuery.output(key: key.digest)
        if !lookup.answers, mayAsk(remoteQuery) { return askRemote(remoteQuery, plan) }
        switch lookup {
        case .absent:
            plan.cached = .absent
            plan.action = .render
            note(&plan, "no cached output under key \(key.digest.prefix(12))…: it is rendered")
            return plan
        case .damaged:
            plan.cached = .damagedRecord
            plan.action = .render
            note(&plan, "the cached output's record is damaged: it is rendered again")
            return plan
        case .overBudget(let verdict):
            // Found by an earlier run's search: its recipe, limit and qualities are in the key.
            let failure = ThumbnailFailure.overBudget(verdict, src: request.sourceText)
            plan.cached = .overBudget
            plan.action = .fail
            plan.failure = failure
            note(&plan, "the cache holds the verdict under key \(key.digest.prefix(12))…: the output cannot "
                        + "fit its max_output_bytes, and the row fails without a decode")
            note(&plan, failure.message)
            return plan
        case .found(let found):
            record = found
        }
        if fillsPlaceholders, record.owesPlaceholder {
            plan.cached = .present
            plan.action = .render
            note(&plan, "the cached output under key \(key.digest.prefix(12))… owes its source's placeholder "
                        + "(made by a run that wanted none): it is rendered again to make it")
            return plan
        }
        plan.output = record
        if outputDirectory != nil {
            switch OutputPlacement.path(of: record, for: request) {
            case .failure(let failure):
                return RowPlan(action: .fail, reasons: plan.reasons + [failure.message], failure: failure)
            case .success(let path):
                plan.path = path
                let seenAt = FileStamp.now
                let held = AtomicFileWriter.stampIfHolds((outputFolder ?? "") + path,
                                                         sha256: record.sha256, size: record.bytes)
                let holds = held != nil
                plan.outHolds = holds
                if let held, let source, let recordStamp {
                    journal?.note(request, source: source, key: key.digest, record: record,
                                  recordStamp: recordStamp, path: path, out: held, seenAt: seenAt)
                }
                if holds {
                    plan.cached = .present
                    plan.action = .keep
                    note(&plan, "--out holds the cached output at \(path): nothing is written")
                    return plan
                }
            }
        }
        // The bytes are checked before they are trusted: for a copy, and for `warm`, which
        // repairs what it finds damaged.
        guard let bytes = cache.outputData(record, key: key.digest) else {
            plan.cached = .damagedBytes
            plan.action = .render
            note(&plan, "the cached output's bytes are missing or damaged: it is rendered again")
            return plan
        }
        plan.cached = .present
        if outputDirectory == nil {
            plan.action = .keep
            note(&plan, "the cache holds the output, sound: nothing to do")
        } else {
            plan.action = .copy
            plan.bytes = bytes
            let path = plan.path ?? "--out"
            note(&plan, "the cache holds the output: it is copied to \(path)")
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
