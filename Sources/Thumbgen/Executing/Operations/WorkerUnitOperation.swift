import Foundation
import Synchronization

/// The in-process `SourceRenderOperation` of one source, moved into a worker process: the
/// jobs its `IdentifyOperation` hands over go to a worker as one unit, and each row's encoded
/// bytes (or failure) come back. Whatever the worker does (crash, hang, grow
/// without end), every row of the unit ends here, and the next unit gets a fresh worker.
final class WorkerUnitOperation: SourceImagingOperation, @unchecked Sendable {
    private let workers: WorkerPool
    private let budget: MemoryBudget
    private let limits: ImagingLimits
    private let cancellation: Cancellation?

    /// Renders, in a worker from `workers`, what `identify` hands over (it runs after it).
    init(after identify: IdentifyOperation, workers: WorkerPool, budget: MemoryBudget,
         limits: ImagingLimits, cancellation: Cancellation?) {
        self.workers = workers
        self.budget = budget
        self.limits = limits
        self.cancellation = cancellation
        super.init(after: identify)
    }

    override func main() {
        guard !isCancelled, let handover = identify.handover else { return }
        let jobs = handover.jobs.filter { !$0.isFinished }
        guard !jobs.isEmpty, cancellation?.isCancelled != true else { return }
        let src = jobs[0].request.sourceText
        var pending = jobs
        // A unit that ends early at one row's render or encode fails that row; the rows that
        // had not reached it did nothing wrong, and go to a fresh worker, as they would have
        // rendered beside it in process. Once: a second early end blames the source, so that
        // a source that hangs every render costs two deadlines, not one per row.
        for attempt in 0..<2 {
            let ending = send(pending, src: src, bytes: handover.bytes)
            guard let failure = ThumbnailFailure.unitEnded(ending, src: src) else { break }
            let open = pending.filter { !$0.isFinished && encoded(for: $0) == nil }
            guard let row = ending.place?.row, pending.indices.contains(row), attempt == 0 else {
                open.forEach { $0.advance(.failed(failure)) }
                break
            }
            pending[row].advance(.failed(failure))
            pending = open.filter { $0 !== pending[row] }
            if pending.isEmpty { break }
        }
        withExtendedLifetime(handover.bytes.file) {}  // a download stays on disk until here
    }

    /// Runs `jobs` as one unit in a worker; their outputs and failures are taken as they come.
    private func send(_ jobs: [Job], src: String, bytes: SourceBytes) -> UnitConversation.Ending {
        let worker: WorkerProcess
        do {
            worker = try workers.checkout()
        } catch {
            if cancellation?.isCancelled == true { return .cancelled }
            jobs.forEach { $0.advance(.failed(.workerNotStarted(src, error))) }
            return .done
        }
        // Each recipe once per worker; the worker was checked out for this thread alone.
        let unit = WorkerProtocol.Unit(path: bytes.path, rows: jobs.enumerated().map { index, job in
            let (slot, isNew) = worker.recipes.slot(for: job.request.spec)
            return WorkerProtocol.UnitRow(index: index, outTemplate: job.request.outTemplate, recipe: slot,
                                          spec: isNew ? job.request.spec : nil)
        })
        let decode = number
        let conversation = UnitConversation(
            worker: worker, budget: budget, seconds: limits.seconds, cancellation: cancellation,
            listener: .init(
                output: { [self] header, data in
                    guard jobs.indices.contains(header.row) else { return }
                    accept(header, data: data, for: jobs[header.row], bytes: bytes)
                },
                failure: { [self] failure in
                    guard jobs.indices.contains(failure.row) else { return }
                    fail(jobs[failure.row], .reported(failure, src: src), bytes: bytes)
                },
                loaded: { loaded in
                    for row in loaded.rows where jobs.indices.contains(row) {
                        jobs[row].advance(.loaded(loaded.source, decode: decode))
                    }
                }))
        let ending = conversation.run(unit)
        if case .done = ending { workers.checkin(worker) } else { workers.discard(worker) }
        if case .done = ending {
            // Every row has its output or its failure; one without is a worker's bug.
            for job in jobs where !job.isFinished && encoded(for: job) == nil {
                job.advance(.failed(.workerMadeNoOutput(src)))
            }
        }
        return ending
    }

    /// Takes one row's output (`EncodedOutput.accepted`).
    private func accept(_ header: WorkerProtocol.Output, data: Data, for job: Job, bytes: SourceBytes) {
        let output = SourceRender.Output(data: data, width: header.width, height: header.height, format: header.format,
                                         decodeMilliseconds: header.decodeMs ?? 0, renderMilliseconds: header.renderMs ?? 0,
                                         placeholder: header.placeholder.flatMap(Placeholder.init(stored:)),
                                         owesPlaceholder: header.owesPlaceholder == true, cropBox: header.cropBox)
        guard let encoded = EncodedOutput.accepted(output, for: job, bytes: bytes, strictness: limits.strictness)
        else { return }
        keep(encoded, for: job)
    }
}
