import Foundation

/// Names one output (its `out` template filled in) and writes it atomically under `--out`.
final class WriteOperation: Operation, @unchecked Sendable {
    private let job: Job
    private let render: RenderOperation
    private let writer: AtomicFileWriter

    init(job: Job, render: RenderOperation, writer: AtomicFileWriter) {
        self.job = job
        self.render = render
        self.writer = writer
        super.init()
        addDependency(render)
    }

    /// Runs the write (or skips it when cancelled), then frees the job's operations: this is
    /// the last of them, so all have run by now.
    override func start() {
        super.start()
        job.releaseOperations()
    }

    override func main() {
        guard !job.isFinished, let encoded = render.encoded else { return }
        let request = job.request
        let start = ContinuousClock.now
        let values = OutputPathTemplate.Values(
            name: request.source.stem, width: encoded.width, height: encoded.height,
            fit: request.spec.fit, ext: encoded.format.fileExtension,
            hash8: String(encoded.sha256.prefix(8)), row: request.row)
        let path: String
        do {
            path = try OutputPathTemplate.render(request.outTemplate, values)
        } catch {
            return job.fail(ThumbnailFailure(.outputEscapes, "\(request.sourceText): out '\(request.outTemplate)' \(error.reason)"))
        }
        do {
            let outcome = try writer.write(encoded.data, to: path)
            job.record(\.write, since: start)
            job.finish(RowResult(
                row: request.row, id: request.id, src: request.sourceText,
                status: outcome == .written ? .written : .unchanged, out: path,
                width: encoded.width, height: encoded.height, bytes: encoded.data.count,
                sha256: encoded.sha256, format: encoded.format))
        } catch {
            job.fail(ThumbnailFailure(error.escaped ? .outputEscapes : .writeFailed,
                                      "\(request.sourceText): \(error.description)"))
        }
    }
}
