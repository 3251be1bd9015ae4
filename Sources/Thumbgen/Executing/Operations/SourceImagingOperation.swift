import Foundation
import Synchronization

/// What makes one source's outputs for the jobs its `IdentifyOperation` hands over (it runs
/// after it): in this process (`SourceRenderOperation`) or in a worker process
/// (`WorkerUnitOperation`). Each job's `WriteOperation` runs after it and takes its own output.
class SourceImagingOperation: Operation, @unchecked Sendable {
    /// What hands the jobs and the source's bytes over.
    let identify: IdentifyOperation
    private let outputs = Mutex<[ObjectIdentifier: EncodedOutput]>([:])

    /// An operation that runs after `identify`.
    init(after identify: IdentifyOperation) {
        self.identify = identify
        super.init()
        addDependency(identify)
    }

    /// `job`'s encoded output, once this operation has made it.
    func encoded(for job: Job) -> EncodedOutput? {
        outputs.withLock { $0[ObjectIdentifier(job)] }
    }

    /// Keeps `encoded` for `job`'s write: the row is rendered.
    func keep(_ encoded: EncodedOutput, for job: Job) {
        outputs.withLock { $0[ObjectIdentifier(job)] = encoded }
        job.advance(.rendered)
    }
}
