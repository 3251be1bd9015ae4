import Foundation
import Synchronization

/// One output's crop, resample and encode, from its source's decoded image. This is where the
/// CPU time goes: libvips evaluates the whole lazy chain during the encode.
final class RenderOperation: Operation, @unchecked Sendable {
    /// The encoded output.
    struct Encoded: Sendable {
        var data: Data
        var width: Int
        var height: Int
        var format: OutputFormat
        /// The key it is stored under in the cache (nil without a cache).
        var cacheKey: OutputKey?
    }

    private let job: Job
    /// The job's generation when this operation was made: once the job moves on (served from
    /// the cache, or started again on another source task), this operation leaves it alone.
    private let generation: Int
    private let decode: DecodeOperation
    private let limits: ImagingLimits
    private let cancellation: Cancellation?
    private let renderer = ThumbnailRenderer()
    private let encoder = ImageEncoder()
    private let output = Mutex<Encoded?>(nil)

    /// The encoded output, once the operation has succeeded.
    var encoded: Encoded? { output.withLock { $0 } }

    /// Renders `job`'s output from what `decode` made of its source (it runs after it), under
    /// `limits` (`--timeout`, strictness) and the run's `cancellation`.
    init(job: Job, decode: DecodeOperation, limits: ImagingLimits, cancellation: Cancellation?) {
        self.job = job
        generation = job.generation
        self.decode = decode
        self.limits = limits
        self.cancellation = cancellation
        super.init()
        addDependency(decode)
    }

    override func main() {
        defer { VipsRuntime.releaseThreadResources() }
        // A job the cache serves may still be waiting for its path: it is not rendered.
        guard !job.isFinished, job.generation == generation else { return }
        if let started = decode.started { job.record(\.decode, since: started) }
        let request = job.request
        switch decode.result(for: job) {
        case nil:
            return job.fail(ThumbnailFailure(.cancelled, "\(request.sourceText): cancelled"))
        case .failure(let failure):
            return job.fail(failure)
        case .success(let row):
            let start = ContinuousClock.now
            defer { job.record(\.render, since: start) }
            let (decoded, format) = (row.decoded, row.format)
            // Everything from here to the encoded bytes is one stage under `--timeout`; a
            // stage that ignores the deadline still ends its row on time (StageWatch).
            do {
                let (data, width, height) = try StageWatch.run(
                    "render", seconds: limits.seconds, cancellation: cancellation,
                    onOverrun: { [job] error in job.fail(.imaging(error, src: request.sourceText, stage: .encodeFailed)) }
                ) { watch throws(ImagingError) -> (Data, Int, Int) in
                    try renderAndEncode(row, watch: watch)
                }
                if let changed = LocalFileCheck.changedWhileRead(path: decoded.path, stamp: decoded.sourceStamp,
                                                                 src: request.sourceText) {
                    return job.fail(changed)
                }
                finish(data, width: width, height: height, format: format, decoded: decoded)
            } catch {
                job.fail(failure(after: error, decoded: decoded))
            }
        }
    }

    /// The output's bytes and size: the source's own bytes when it passes through, else a
    /// render and an encode.
    private func renderAndEncode(_ row: DecodedRow, watch: StageWatch) throws(ImagingError) -> (Data, Int, Int) {
        let (decoded, format, spec) = (row.decoded, row.format, job.request.spec)
        if row.passesThrough, let path = decoded.path, let data = PassThrough.bytes(of: path, format: format) {
            return (data, decoded.header.orientedWidth, decoded.header.orientedHeight)
        }
        StageReport.enter(.render, row: job.request.row)
        let image = try renderer.render(decoded, spec: spec, plan: row.geometry, format: format,
                                        shared: row.sharedScale, watch: watch)
        StageReport.enter(.encode, row: job.request.row)
        let data = try encoder.encode(image, as: format, quality: spec.quality, options: spec.encoding,
                                      sourcePixels: decoded.image.width * decoded.image.height, watch: watch)
        return (data, image.width, image.pageHeight)
    }

    private func finish(_ data: Data, width: Int, height: Int, format: OutputFormat,
                        decoded: DecodedImage) {
        let request = job.request
        output.withLock {
            $0 = Encoded(
                data: data, width: width, height: height, format: format,
                cacheKey: decoded.sourceDigest.map { OutputKey(
                    sourceDigest: $0, request: request, strictness: limits.strictness) })
        }
    }
}

extension RenderOperation {
    /// Names what went wrong when rendering failed: a broken source is a decode failure,
    /// anything else an encode failure. Shared pixels were read into memory by the decode, so
    /// a failure then is the encode's; lazy pixels come with the decode's `faultCheck`.
    func failure(after error: ImagingError, decoded: DecodedImage) -> ThumbnailFailure {
        let src = job.request.sourceText
        if cancellation?.isCancelled == true { return ThumbnailFailure(.cancelled, "\(src): cancelled") }
        if case .timedOut = error { return .imaging(error, src: src, stage: .encodeFailed) }
        guard let faultCheck = decoded.faultCheck else { return .imaging(error, src: src, stage: .encodeFailed) }
        // The check gets a deadline of its own: the render's may be spent.
        let sourceError = try? StageWatch.run(
            "decode", seconds: limits.seconds, cancellation: cancellation,
            onOverrun: { [job] error in job.fail(.imaging(error, src: src, stage: .decodeFailed)) }
        ) { watch throws(ImagingError) -> ImagingError? in
            faultCheck(watch)
        }
        if let sourceError {
            return .imaging(sourceError, src: src, stage: .decodeFailed)
        }
        return .imaging(error, src: src, stage: .encodeFailed)
    }
}
