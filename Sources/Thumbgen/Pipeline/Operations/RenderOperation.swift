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
        var sha256: String
        /// The key it is stored under in the cache (nil without a cache).
        var cacheKey: OutputKey?
    }

    private let job: Job
    private let decode: DecodeOperation
    private let renderer = ThumbnailRenderer()
    private let encoder = ImageEncoder()
    private let output = Mutex<Encoded?>(nil)

    /// The encoded output, once the operation has succeeded.
    var encoded: Encoded? { output.withLock { $0 } }

    init(job: Job, decode: DecodeOperation) {
        self.job = job
        self.decode = decode
        super.init()
        addDependency(decode)
    }

    override func main() {
        defer { VipsRuntime.releaseThreadResources() }
        // A job the cache serves may still be waiting for its path: it is not rendered.
        guard !job.isFinished, !job.isHandedToCache else { return }
        if let started = decode.started { job.record(\.decode, since: started) }
        let request = job.request
        switch decode.result(for: job) {
        case nil:
            return job.fail(ThumbnailFailure(.cancelled, "\(request.sourceText): cancelled"))
        case .failure(let failure):
            return job.fail(failure)
        case .success(let decoded):
            let start = ContinuousClock.now
            defer { job.record(\.render, since: start) }
            let format = FormatResolver.resolve(request.spec.format, outTemplate: request.outTemplate,
                                                source: decoded.header.format)
            // Everything from here to the encoded bytes is one stage under `--timeout`; a
            // stage that ignores the deadline still ends its row on time (StageWatch).
            do {
                let made = try StageWatch.run(
                    "render", seconds: decode.decoder.limits.seconds, cancellation: decode.cancellation,
                    onOverrun: { [job] error in job.fail(.imaging(error, src: request.sourceText, stage: .encodeFailed)) }
                ) { watch throws(ImagingError) -> Made in
                    try renderAndEncode(decoded, format: format, watch: watch)
                }
                guard case .output(let data, let width, let height) = made else {
                    if case .brokenSource(let error) = made {
                        job.fail(.imaging(error, src: request.sourceText, stage: .decodeFailed))
                    }
                    return
                }
                // A local file rewritten since it was hashed may have given other pixels:
                // they must not be cached (nor reported) under the old digest.
                if let stamp = decoded.sourceStamp, let path = decoded.path, FileIndex.Stamp.of(path) != stamp {
                    return job.fail(ThumbnailFailure(.sourceUnreadable, "\(request.sourceText): the file "
                                                     + "changed while it was being read; run again"))
                }
                finish(data, width: width, height: height, format: format, decoded: decoded)
            } catch {
                job.fail(failure(after: error, decoded: decoded))
            }
        }
    }

    /// What the render stage made.
    private enum Made {
        /// The encoded output and its size.
        case output(Data, width: Int, height: Int)
        /// A source that was to pass through does not decode cleanly: already known to be the
        /// source's fault, so it is not read a second time to find out (`failure(after:)`).
        case brokenSource(ImagingError)
    }

    /// The output's bytes and size: the source's own bytes when it passes through, else a
    /// render and an encode.
    private func renderAndEncode(_ decoded: DecodedImage, format: OutputFormat, watch: StageWatch)
        throws(ImagingError) -> Made
    {
        let request = job.request
        if PassThrough.applies(decoded.header, spec: request.spec, format: format),
           let path = decoded.path {
            // The bytes go out as they are, so they must decode cleanly first.
            if !decoded.isInMemory, let error = decode.decoder.decodeError(path: path, watch: watch) {
                // Past the deadline, the read failed because it was stopped.
                if watch.isPastDeadline { throw error }
                return .brokenSource(error)
            }
            if let data = PassThrough.bytes(of: path, format: format) {
                return .output(data, width: decoded.header.orientedWidth, height: decoded.header.orientedHeight)
            }
        }
        let image = try renderer.render(decoded, spec: request.spec, format: format, watch: watch)
        let data = try encoder.encode(image, as: format, quality: request.spec.quality,
                                      options: request.spec.encoding, watch: watch)
        return .output(data, width: image.width, height: image.pageHeight)
    }

    private func finish(_ data: Data, width: Int, height: Int, format: OutputFormat,
                        decoded: DecodedImage) {
        let digest = ContentDigest.of(data)
        let request = job.request
        output.withLock {
            $0 = Encoded(
                data: data, width: width, height: height, format: format, sha256: digest,
                cacheKey: decoded.sourceDigest.map { OutputKey(
                    sourceDigest: $0, request: request, strictness: decode.decoder.limits.strictness) })
        }
    }
}

extension RenderOperation {
    /// Names what went wrong when rendering failed: a broken source (found by reading it again
    /// on its own) is a decode failure, anything else an encode failure.
    func failure(after error: ImagingError, decoded: DecodedImage) -> ThumbnailFailure {
        let src = job.request.sourceText
        if decode.cancellation?.isCancelled == true { return ThumbnailFailure(.cancelled, "\(src): cancelled") }
        if case .timedOut = error { return .imaging(error, src: src, stage: .encodeFailed) }
        guard !decoded.isInMemory, let path = decoded.path else {
            return .imaging(error, src: src, stage: .encodeFailed)
        }
        // The re-read gets a deadline of its own: the render's may be spent.
        let decodeError = try? StageWatch.run(
            "decode", seconds: decode.decoder.limits.seconds, cancellation: decode.cancellation,
            onOverrun: { [job] error in job.fail(.imaging(error, src: src, stage: .decodeFailed)) }
        ) { watch throws(ImagingError) -> ImagingError? in
            decode.decoder.decodeError(path: path, watch: watch)
        }
        if let decodeError {
            return .imaging(decodeError, src: src, stage: .decodeFailed)
        }
        return .imaging(error, src: src, stage: .encodeFailed)
    }
}

/// Decides `format=auto`: the `out` template's extension, else the source's format, else JPEG
/// (for a source whose format has no name here, such as one an `--enable-loader` opened).
enum FormatResolver {
    static func resolve(_ choice: FormatChoice, outTemplate: String, source: OutputFormat?) -> OutputFormat {
        if case .fixed(let format) = choice { return format }
        let ext = (outTemplate as NSString).pathExtension
        if !ext.contains("{"), let format = OutputFormat(fileExtension: ext) { return format }
        if let source { return source }
        return .jpeg
    }
}
