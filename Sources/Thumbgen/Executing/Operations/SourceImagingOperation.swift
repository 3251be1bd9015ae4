import Foundation
import Synchronization

/// What makes one source's outputs for the jobs its `IdentifyOperation` hands over (it runs
/// after it): in this process (`SourceRenderOperation`) or in a worker process
/// (`WorkerUnitOperation`). Each job's `WriteOperation` runs after it and takes its own output.
class SourceImagingOperation: Operation, @unchecked Sendable {
    /// What hands the jobs and the source's bytes over.
    let identify: IdentifyOperation
    private let outputs = Mutex<[ObjectIdentifier: EncodedOutput]>([:])
    /// This decode's number in the process, from 1: `--events` gives it with each row's
    /// `loaded`, so that the rows that shared one decode can be told.
    let number: Int
    private static let numbers = Atomic<Int>(0)

    /// An operation that runs after `identify`.
    init(after identify: IdentifyOperation) {
        number = Self.numbers.wrappingAdd(1, ordering: .relaxed).newValue
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

    /// Ends `job` with `failure`, its render's. An output that cannot fit its `max_output_bytes`
    /// is a verdict on its output key, kept in the cache first (as an output is stored), so
    /// that the next run fails the row without a decode; not when the source changed while it
    /// was read (then the row fails so, as a row with an output does: `EncodedOutput.accepted`).
    func fail(_ job: Job, _ failure: ThumbnailFailure, bytes: SourceBytes) {
        guard let verdict = failure.overBudget, let cache = identify.cache, let digest = bytes.digest else {
            return job.advance(.failed(failure))
        }
        if let changed = LocalFileCheck.changedWhileRead(path: bytes.path, stamp: bytes.stamp,
                                                         src: job.request.sourceText) {
            return job.advance(.failed(changed))
        }
        let key = OutputKey(sourceDigest: digest, request: job.request, strictness: identify.strictness)
        cache.storeVerdict(verdict, key: key.digest)
        job.advance(.failed(failure))
    }
}
