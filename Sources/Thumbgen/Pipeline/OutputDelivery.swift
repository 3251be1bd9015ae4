import Foundation

/// Puts one output in place under `--out`, freshly rendered or from the cache: names it (its
/// `out` template filled in), leaves it alone when the file already holds the same bytes, and
/// otherwise writes it atomically. Without a writer (`thumbgen warm`) nothing is written.
struct OutputDelivery: Sendable {
    /// Writes under `--out`; nil for a cache-only run.
    let writer: AtomicFileWriter?
    /// Who has which path in this run; nil when nothing is written (or for the dry run).
    var claims: OutputClaims?

    /// How a delivery ended.
    enum Delivery {
        /// The row's result (written or unchanged).
        case done(RowResult)
        /// The path or the write failed.
        case failed(ThumbnailFailure)
        /// The bytes were needed but could not be had (a cached blob found damaged).
        case bytesMissing
    }

    /// The path under `--out` of the output `record` describes, for `request`: its `out`
    /// template filled in.
    static func path(of record: OutputRecord, for request: ThumbnailRequest) -> Result<String, ThumbnailFailure> {
        let values = OutputPathTemplate.Values(
            name: request.source.stem, width: record.width, height: record.height,
            fit: request.spec.fit, ext: record.format.fileExtension,
            hash8: String(record.sha256.prefix(8)), row: request.row)
        do {
            return .success(try OutputPathTemplate.render(request.outTemplate, values))
        } catch {
            return .failure(ThumbnailFailure(
                .outputEscapes, "\(request.sourceText): out '\(request.outTemplate)' \(error.reason)"))
        }
    }

    /// Delivers the output described by `record` for `request`; `bytes` is asked for the
    /// encoded bytes only if the file must be written. `rendered` says whether the output was
    /// made in this run (a cache-only run reports it `written` into the cache). `completion`
    /// hears how it went: at once, or from another thread once the path's claim is decided
    /// (`OutputClaims`: an earlier row may still be about to take the same path). `isWanted`
    /// is asked right before a file is written: a row that ended meanwhile (cancelled) writes
    /// nothing.
    func deliver(_ record: OutputRecord, for request: ThumbnailRequest, rendered: Bool,
                 bytes: @escaping @Sendable () -> Data?,
                 isWanted: @escaping @Sendable () -> Bool = { true },
                 completion: @escaping @Sendable (Delivery) -> Void) {
        var result = RowResult(
            row: request.row, id: request.id, src: request.sourceText, status: .unchanged,
            width: record.width, height: record.height, bytes: record.bytes,
            sha256: record.sha256, format: record.format)
        guard let writer else {
            // A cache-only run checks a cached output's bytes, so that it repairs damage.
            if !rendered && bytes() == nil { return completion(.bytesMissing) }
            result.status = rendered ? .written : .unchanged
            return completion(.done(result))
        }
        let path: String
        switch Self.path(of: record, for: request) {
        case .success(let found): path = found
        case .failure(let failure): return completion(.failed(failure))
        }
        result.out = path
        let found = result
        let write: @Sendable () -> Delivery = {
            guard isWanted() else {
                return .failed(ThumbnailFailure(.cancelled, "\(request.sourceText): cancelled"))
            }
            return Self.write(found, record: record, to: path, with: writer, bytes: bytes)
        }
        guard let claims else { return completion(write()) }
        claims.claim(row: request.row, path: path, sha256: record.sha256) { decision in
            switch decision {
            case .write:
                let delivery = write()
                // Nothing was written: the path is not the row's after all.
                if case .done = delivery {} else { claims.release(row: request.row, path: path) }
                completion(delivery)
            case .identical:
                completion(.done(found))
            case .conflict(let other):
                completion(.failed(ThumbnailFailure(.outputConflict, "\(request.sourceText): row "
                    + "\(other) writes other bytes to \(path); give one of them another out")))
            }
        }
    }

    /// Writes `result`'s output to `path` unless the file already holds its bytes.
    private static func write(_ result: RowResult, record: OutputRecord, to path: String,
                              with writer: AtomicFileWriter, bytes: () -> Data?) -> Delivery {
        var result = result
        do {
            if try writer.holds(path, sha256: record.sha256, size: record.bytes) {
                return .done(result)
            }
            guard let data = bytes() else { return .bytesMissing }
            let outcome = try writer.write(data, to: path)
            result.status = outcome == .written ? .written : .unchanged
            return .done(result)
        } catch {
            return .failed(ThumbnailFailure(error.escaped ? .outputEscapes : .writeFailed,
                                            "\(result.src): \(error.description)"))
        }
    }
}
