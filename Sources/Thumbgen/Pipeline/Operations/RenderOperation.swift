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
        var cacheKey: String?
    }

    private let job: Job
    private let decode: DecodeOperation
    private let renderer = ThumbnailRenderer()
    private let encoder = ImageEncoder()
    private let state = Mutex<(image: VipsImageRef?, encoded: Encoded?, abandoned: Bool)>((nil, nil, false))

    /// The encoded output, once the operation has succeeded.
    var encoded: Encoded? { state.withLock { $0.encoded } }

    init(job: Job, decode: DecodeOperation) {
        self.job = job
        self.decode = decode
        super.init()
        addDependency(decode)
    }

    /// Stops an encode in progress at once, and any later one from starting: the job was
    /// cancelled.
    func abandon() {
        state.withLock {
            $0.abandoned = true
            return $0.image
        }?.kill()
    }

    override func main() {
        defer { VipsRuntime.releaseThreadResources() }
        guard !job.isFinished else { return }
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
            if PassThrough.applies(decoded.header, spec: request.spec, format: format),
               let path = decoded.path {
                // The bytes go out as they are, so they must decode cleanly first.
                if !decoded.isInMemory, let error = decode.decoder.decodeError(path: path) {
                    return job.fail(.imaging(error, src: request.sourceText, stage: .decodeFailed))
                }
                if let data = PassThrough.bytes(of: path, format: format) {
                    return finish(data, width: decoded.header.orientedWidth,
                                  height: decoded.header.orientedHeight, format: format, decoded: decoded)
                }
            }
            do {
                let image = try renderer.render(decoded, spec: request.spec, format: format)
                let abandoned = state.withLock {
                    $0.image = image
                    return $0.abandoned
                }
                if abandoned { image.kill() }
                let data = try EvaluationDeadline.run("encode", image: image, seconds: decode.decoder.limits.seconds) {
                    () throws(ImagingError) -> Data in
                    try encoder.encode(image, as: format, quality: request.spec.quality,
                                       options: request.spec.encoding)
                }
                state.withLock { $0.image = nil }
                finish(data, width: image.width, height: image.pageHeight, format: format, decoded: decoded)
            } catch {
                state.withLock { $0.image = nil }
                job.fail(failure(after: error, decoded: decoded))
            }
        }
    }

    private func finish(_ data: Data, width: Int, height: Int, format: OutputFormat,
                        decoded: DecodedImage) {
        let digest = ContentDigest.of(data)
        let request = job.request
        state.withLock {
            $0.encoded = Encoded(
                data: data, width: width, height: height, format: format, sha256: digest,
                cacheKey: decoded.sourceDigest.map { OutputKey.make(
                    sourceDigest: $0, request: request, strictness: decode.decoder.limits.strictness) })
        }
    }
}

extension RenderOperation {
    /// Names what went wrong when rendering failed: a broken source (found by reading it again
    /// on its own) is a decode failure, anything else an encode failure.
    func failure(after error: ImagingError, decoded: DecodedImage) -> ThumbnailFailure {
        let src = job.request.sourceText
        if state.withLock({ $0.abandoned }) { return ThumbnailFailure(.cancelled, "\(src): cancelled") }
        if case .timedOut = error { return .imaging(error, src: src, stage: .encodeFailed) }
        if !decoded.isInMemory, let path = decoded.path,
           let decodeError = decode.decoder.decodeError(path: path) {
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
