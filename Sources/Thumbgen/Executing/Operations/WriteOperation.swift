import Foundation

/// Stores one rendered output in the cache (when there is one) and puts it in place under
/// `--out`.
final class WriteOperation: Operation, @unchecked Sendable {
    private let job: Job
    /// The job's generation when this operation was made: once the job moves on (served from
    /// the cache, or started again on another source task), this operation leaves it alone.
    private let generation: Int
    /// The output, once the operation it runs after has made it.
    private let encoded: @Sendable () -> EncodedOutput?
    private let delivery: OutputDelivery
    private let cache: ThumbnailCache?

    /// Writes what `imaging` made for `job` (it runs after it).
    init(job: Job, after imaging: SourceImagingOperation, delivery: OutputDelivery, cache: ThumbnailCache?) {
        self.job = job
        generation = job.generation
        self.encoded = { imaging.encoded(for: job) }
        self.delivery = delivery
        self.cache = cache
        super.init()
        addDependency(imaging)
    }

    /// Runs the write (or skips it when cancelled), then frees the job's operations: this is
    /// the last of them, so all have run by now.
    override func start() {
        super.start()
        // When the job started again on another source task, that generation's write is the
        // last, and lets go of them all.
        job.releaseOperations(madeFor: generation)
    }

    override func main() {
        guard !job.isFinished, job.generation == generation else { return }
        guard let encoded = encoded() else {
            // Every render ends its row or leaves an output; this keeps "every row ends" true
            // whatever a future render path forgets.
            return job.advance(.failed(.noOutputMade(job.request.sourceText)))
        }
        let start = ContinuousClock.now
        // Hashed here, once, whichever process rendered it.
        let record = OutputRecord(sha256: ContentDigest.of(encoded.data), width: encoded.width, height: encoded.height,
                                  format: encoded.format, bytes: encoded.data.count, placeholder: encoded.placeholder,
                                  owesPlaceholder: encoded.owesPlaceholder, cropBox: encoded.cropBox)
        if let cache, let key = encoded.cacheKey {
            cache.storeOutput(encoded.data, record: record, key: key.digest)
        }
        // The job may end later, on another thread, when an earlier row could still take the
        // same path (OutputClaims); this operation does not wait for it.
        let job = job
        delivery.deliver(record, for: job.request, bytes: encoded.data, rendered: true,
                         isWanted: { !job.isFinished }, placing: job.place) { outcome in
            switch outcome {
            case .success(let result):
                job.record(\.write, since: start)
                job.advance(.written(result))
            case .failure(let failure):
                job.advance(.failed(failure))
            }
        }
    }
}
