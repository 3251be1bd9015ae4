import Foundation
import Synchronization

/// The imaging of one source's rows in this process (`--isolation none`): the jobs its
/// `IdentifyOperation` hands over go through `renderer` (`SourceRender`, the same call a worker
/// process makes for a unit), and each row's output waits here for its write.
final class SourceRenderOperation: SourceImagingOperation, @unchecked Sendable {
    private let decoder: SourceDecoder
    /// What renders: `SourceRenderer`, or a test's double.
    private let renderer: any SourceRendering
    /// Whether the source's placeholder is made (`PipelineConfiguration.makesPlaceholders`).
    private let makesPlaceholders: Bool
    private let cancellation: Cancellation?

    /// Renders with `decoder`, through `renderer`, what `identify` hands over (it runs after it),
    /// making the source's placeholder when `makesPlaceholders` says so.
    init(decoder: SourceDecoder, renderer: any SourceRendering, makesPlaceholders: Bool,
         after identify: IdentifyOperation, cancellation: Cancellation?) {
        self.decoder = decoder
        self.renderer = renderer
        self.makesPlaceholders = makesPlaceholders
        self.cancellation = cancellation
        super.init(after: identify)
    }

    override func main() {
        guard !isCancelled, let handover = identify.handover else { return }
        let jobs = handover.jobs.filter { !$0.isFinished }
        guard !jobs.isEmpty else { return }
        let generations = jobs.map(\.generation)
        let bytes = handover.bytes
        let strictness = decoder.limits.strictness
        let decode = number
        let rows = jobs.map {
            SourceRender.Row(spec: $0.request.spec, outTemplate: $0.request.outTemplate, sourceText: $0.request.sourceText)
        }
        renderer.render(path: bytes.path, rows: rows, decoder: decoder, makesPlaceholders: makesPlaceholders,
                        cancellation: cancellation, listener: .init(
            // A job that moved on (served from the cache, or started again elsewhere) is left alone.
            wants: { !jobs[$0].isFinished && jobs[$0].generation == generations[$0] },
            loaded: { indices, facts in
                let source = RowResult.SourceInfo(facts)
                for index in indices { jobs[index].advance(.loaded(source, decode: decode)) }
            },
            output: { [self] index, output in
                let job = jobs[index]
                guard let encoded = EncodedOutput.accepted(output, for: job, bytes: bytes, strictness: strictness)
                else { return }
                keep(encoded, for: job)
            },
            failure: { [self] index, failure in fail(jobs[index], failure, bytes: bytes) }))
        withExtendedLifetime(bytes.file) {}  // a download stays on disk until here
    }
}

extension RowResult.SourceInfo {
    /// The report's account of what `SourceRender` found the source to be.
    init(_ facts: SourceRender.Facts) {
        self.init(bytes: facts.bytes, width: facts.width, height: facts.height, format: facts.format,
                  frames: facts.frames)
    }
}
