import Foundation
import Synchronization

/// Puts one output in place under `--out`, freshly rendered or from the cache, as its plan
/// says: names it (its `out` template filled in), takes its path (`OutputClaims`), and writes
/// it atomically, or leaves in place a file the plan found holding it. Without a writer
/// (`thumbgen warm`) nothing is written.
struct OutputDelivery: Sendable {
    /// Writes under `--out`; nil for a cache-only run.
    let writer: AtomicFileWriter?
    /// Who has which path in this run; nil when nothing is written.
    var claims: OutputClaims?
    /// Where a kept output's bytes come from should its file change while the row waits.
    var cache: ThumbnailCache?
    /// `--drop-larger`, `--budget`: outputs wait for their source's others to be weighed.
    var weights: SourceWeights?
    /// The placeholder kinds a result carries, from its record (`--placeholders`).
    var placeholderKinds: Set<PlaceholderKind> = PlaceholderKind.defaults

    /// The result of `request`'s row for the output `record` describes, before it is placed.
    func result(_ record: OutputRecord, for request: ThumbnailRequest) -> RowResult {
        var result = RowResult(
            row: request.row, id: request.id, src: request.sourceText, status: .unchanged,
            width: record.width, height: record.height, bytes: record.bytes,
            sha256: record.sha256, format: record.format)
        if let placeholder = record.placeholder {
            result.placeholder = PlaceholderFields(placeholder, kinds: placeholderKinds)
        }
        result.crop = record.cropBox
        return result
    }

    /// Delivers the output described by `record` for `request` (at `planned`, the path its plan
    /// found, else its `out` template filled in): writes `bytes`, or, when they are nil, leaves
    /// the file the plan found holding them (`keep`; should the row have waited for its path
    /// meanwhile, the file is checked again, and the bytes cached under `key` are written if it
    /// changed). `rendered` says whether the output was made in this run (a
    /// cache-only run reports it `written` into the cache). `completion` hears the row's result
    /// or failure: at once, or from another thread once the path's claim is decided
    /// (`OutputClaims`: an earlier row may still be about to take the same path). `isWanted` is
    /// asked right before a file is written: a row that ended meanwhile (cancelled) writes
    /// nothing. `placing` makes the rename that puts it in place (`Job.place`: under the row's
    /// lock, so that a cancel either comes first and nothing is placed, or comes too late).
    func deliver(_ record: OutputRecord, for request: ThumbnailRequest, at planned: String? = nil,
                 bytes: Data?, rendered: Bool, key: OutputKey? = nil,
                 isWanted: @escaping @Sendable () -> Bool = { true },
                 placing: @escaping AtomicFileWriter.Placement = { $0() },
                 completion: @escaping @Sendable (Result<RowResult, ThumbnailFailure>) -> Void) {
        if let weights {
            var copy = self
            copy.weights = nil
            let unweighed = copy
            return weights.weigh(row: request.row, record: record) { verdict in
                switch verdict {
                case .place:
                    unweighed.deliver(record, for: request, at: planned, bytes: bytes, rendered: rendered, key: key,
                                      isWanted: isWanted, placing: placing, completion: completion)
                case .dropped(let format, let fallbackBytes):
                    var result = unweighed.result(record, for: request)
                    result.status = .dropped
                    result.fallback = RowResult.Fallback(format: format, bytes: fallbackBytes)
                    completion(.success(result))
                case .overBudget(let total, let budget):
                    completion(.failure(.overSourceBudget(request.sourceText, bytes: record.bytes, total: total,
                                                          budget: budget)))
                }
            }
        }
        var result = result(record, for: request)
        guard let writer else {
            result.status = rendered ? .written : .unchanged
            return completion(.success(result))
        }
        let path: String
        if let planned {
            path = planned
        } else {
            switch OutputPlacement.path(of: record, for: request) {
            case .success(let found): path = found
            case .failure(let failure): return completion(.failure(failure))
            }
        }
        result.out = path
        guard let claims else {
            return completion(Self.write(result, record: record, bytes: bytes, waited: false, cache: cache,
                                         key: key, isWanted: isWanted, placing: placing, to: path, with: writer))
        }
        let found = result
        let cache = cache
        // What `decision` makes of the row: `waited` says whether it came after `claim`
        // returned (the file may have changed meanwhile). A local function, not a closure
        // value: nothing is allocated for it unless the row waits.
        @Sendable func outcome(_ decision: OutputClaims.Decision, _ waited: Bool) -> Result<RowResult, ThumbnailFailure> {
            switch decision {
            case .write:
                let delivery = Self.write(found, record: record, bytes: bytes, waited: waited, cache: cache,
                                          key: key, isWanted: isWanted, placing: placing, to: path, with: writer)
                // Nothing was written: the path is not the row's after all.
                if case .failure = delivery { claims.release(row: found.row, path: path) }
                return delivery
            case .identical:
                return .success(found)
            case .conflict(let other):
                return .failure(.outputConflict(found.src, other: other, path: path))
            }
        }
        let decision = claims.claim(row: request.row, path: path, sha256: record.sha256) {
            { decision in completion(outcome(decision, true)) }
        }
        if let decision { completion(outcome(decision, false)) }
    }

    /// Writes `result`'s output to `path`, unless the row is no longer wanted (cancelled).
    /// Without `bytes` the plan found the file holding them: only its path is checked (it must
    /// not lead outside `--out`), and, when the row `waited` for its path, whether it still
    /// holds them (else the bytes `cache` holds under `key`, read only then, are written).
    private static func write(_ result: RowResult, record: OutputRecord, bytes: Data?, waited: Bool,
                              cache: ThumbnailCache?, key: OutputKey?, isWanted: () -> Bool,
                              placing: AtomicFileWriter.Placement, to path: String,
                              with writer: AtomicFileWriter) -> Result<RowResult, ThumbnailFailure> {
        guard isWanted() else { return .failure(.cancelled(result.src)) }
        let cached: () -> Data? = { key.flatMap { cache?.outputData(record, key: $0.digest) } }
        var result = result
        do {
            var data = bytes
            if data == nil {
                let file = try writer.confinedPath(path)
                if !waited || AtomicFileWriter.fileHolds(file, sha256: record.sha256, size: record.bytes) {
                    return .success(result)
                }
                data = cached()
            }
            guard let data else {
                return .failure(.changedWhileWaiting(result.src, path: path))
            }
            guard let outcome = try writer.write(data, to: path, placing: placing) else {
                return .failure(.cancelled(result.src))
            }
            result.status = outcome == .written ? .written : .unchanged
            return .success(result)
        } catch {
            return .failure(.notWritten(result.src, error))
        }
    }
}
