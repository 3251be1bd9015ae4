import Foundation
import Synchronization

/// Learns what one source's bytes are, for every job attached to its `SourceTask`: a local
/// file's digest (from its stamp, else by hashing it), or what the download got. Each job is
/// then planned again with that digest (`RowPlanner`): a job whose output turns out to be
/// cached (after a `304`, or rendered meanwhile by another row) is handed back to the pipeline
/// to be served, and the rest go on to the decode, which is skipped when none is left.
///
/// A stored body is checked against its digest here, and only when a job still needs its
/// pixels. One found damaged is dropped, and its jobs are planned afresh and start again on a
/// new source task (which fetches it again, or fails them `not_cached` offline).
final class IdentifyOperation: Operation, @unchecked Sendable {
    let source: SourceLocation
    /// Set by the owning task right after creation; weak so the pair does not leak.
    weak var task: SourceTask?
    /// Called when the operation starts, so that the registry stops offering the task.
    var onStart: (@Sendable (SourceTask) -> Void)?
    /// The run's stop button: stops hashing when pressed.
    let cancellation: Cancellation?
    private let download: DownloadOperation?
    private let planner: RowPlanner
    /// How a local file is hashed; nil without a cache (the digest is then unknown).
    private let hashing: (any SourceHashing)?
    private let handBack: @Sendable (Job, RowPlan) -> Void
    private let found = Mutex<Handover?>(nil)

    /// What the decode gets: the jobs left to render, and the source's bytes.
    struct Handover {
        var jobs: [Job]
        var bytes: SourceBytes
    }

    /// The jobs to decode for and where their bytes are; nil when there are none (every job
    /// failed, was cancelled or was served from the cache).
    var handover: Handover? { found.withLock { $0 } }

    /// The cache the jobs were planned over (nil with `--no-cache`), and how strictly their
    /// source is decoded (part of their output keys): where the imaging keeps a row's verdict.
    var cache: ThumbnailCache? { planner.cache }
    var strictness: DecodeStrictness { planner.limits.strictness }

    /// Identifies `source` (after `download` for a URL, by `hashing` for a local file);
    /// `handBack` carries out the plan of a job that will not render from these bytes
    /// (`Pipeline.carryOut(_:for:)`).
    init(source: SourceLocation, download: DownloadOperation?, planner: RowPlanner,
         hashing: (any SourceHashing)?, cancellation: Cancellation?,
         handBack: @escaping @Sendable (Job, RowPlan) -> Void) {
        self.source = source
        self.download = download
        self.planner = planner
        self.hashing = hashing
        self.handBack = handBack
        self.cancellation = cancellation
        super.init()
        if let download { addDependency(download) }
    }

    override func main() {
        guard let task, !isCancelled else { return }
        onStart?(task)
        var jobs = task.close().filter { !$0.isFinished }
        guard !jobs.isEmpty else { return }
        let bytes: SourceBytes
        switch sourceBytes(for: jobs) {
        case .failure(let failure):
            return jobs.forEach { $0.advance(.failed(failure)) }
        case .success(let got):
            bytes = got
        }
        // Hashing a large file takes time: rows may have ended meanwhile.
        jobs = jobs.filter { !$0.isFinished }
        guard !jobs.isEmpty, cancellation?.isCancelled != true else { return }
        jobs.forEach { $0.advance(.identified(bytes.origin, digest: bytes.digest)) }
        if let digest = bytes.digest {
            jobs = jobs.filter { rendersFromTheseBytes($0, digest: digest, origin: bytes.origin) }
        }
        guard !jobs.isEmpty else { return }
        if !bytes.verified, let cache = planner.cache, let digest = bytes.digest, !cache.blobs.verifyFile(digest) {
            return startAgain(jobs, cache: cache)
        }
        // What `explain` compares a later miss with: the keys these rows are about to make.
        planner.cache?.recipes.note(jobs.compactMap(\.plan.key), for: jobs[0].request)
        found.withLock { $0 = Handover(jobs: jobs, bytes: bytes) }
    }

    /// Plans `job` again now that its source's digest is known; hands back a job whose plan
    /// no longer renders from these bytes, and says whether it still does.
    private func rendersFromTheseBytes(_ job: Job, digest: String, origin: SourceOrigin) -> Bool {
        let identified = RowPlanner.Identified(digest: digest, origin: origin)
        let plan = RemoteAsking.plan(by: planner) { $0.plan(job.request, identified: identified) }
        job.replan(plan)
        guard plan.action == .render else {
            handBack(job, plan)
            return false
        }
        return true
    }

    /// The stored body was damaged (`verifyFile` dropped it): drops the record naming it too,
    /// and starts the jobs again, planned afresh. Once only: a body that cannot be dropped (a
    /// cache this process cannot write) fails its rows rather than loop.
    private func startAgain(_ jobs: [Job], cache: ThumbnailCache) {
        if let identity = jobs.first?.request.urlIdentity { cache.urls.remove(identity) }
        for job in jobs {
            guard job.startsAgain() else {
                job.advance(.failed(.damagedCopyKept(job.request.sourceText)))
                continue
            }
            var plan = RemoteAsking.plan(by: planner) { $0.plan(job.request) }
            plan.reasons.insert("the stored body was damaged and has been dropped", at: 0)
            job.replan(plan)
            handBack(job, plan)
        }
    }

    /// Where the source's bytes are and what they are: a local file (hashed when the cache is
    /// on and its stamp is not on record), or the download's result.
    private func sourceBytes(for jobs: [Job]) -> Result<SourceBytes, ThumbnailFailure> {
        let src = jobs[0].request.sourceText
        switch source {
        case .file(let local):
            // Checked again: the file may have gone since the row was planned.
            if let failure = LocalFileCheck.failure(path: local, src: src, maxBytes: planner.limits.maxInputBytes) {
                return .failure(failure)
            }
            let identified = hashing?.digest(of: local, cancellation: cancellation)
            return .success(SourceBytes(path: local, digest: identified?.digest, origin: .local,
                                        verified: true, file: nil, stamp: identified?.stamp))
        case .url:
            if let started = download?.started { jobs.forEach { $0.record(\.download, since: started) } }
            switch download?.result {
            case nil:
                return .failure(.cancelled(src))
            case .failure(let failure):
                let info = RowResult.HTTPInfo(status: failure.status, bytes: 0, attempts: failure.attempts)
                jobs.forEach { $0.advance(.fetched(info)) }
                return .failure(.fetch(failure, src: src))
            case .success(let downloaded):
                let info = downloaded.response.map {
                    RowResult.HTTPInfo(status: $0.status, bytes: $0.bytes, attempts: $0.attempts)
                }
                jobs.forEach { $0.advance(.fetched(info)) }
                return .success(SourceBytes(
                    path: downloaded.path, digest: planner.cache == nil ? nil : downloaded.digest,
                    origin: downloaded.origin, verified: downloaded.verified, file: downloaded.file))
            }
        }
    }
}

/// A source's bytes, found: where they are, their digest, and how they were got.
struct SourceBytes {
    var path: String
    /// The SHA-256 of the bytes; nil without a cache (nothing needs it).
    var digest: String?
    var origin: SourceOrigin
    /// Whether the bytes are known to match `digest` (a stored body is checked only when a
    /// job needs its pixels; a local file is known by its stamp).
    var verified: Bool
    /// A temporary download to keep until the pixels are read.
    var file: TemporaryDownload?
    /// A local file's stamp when it was hashed: its outputs are cached under `digest` only if
    /// the file still has it once they are made.
    var stamp: FileIndex.Stamp?
}
