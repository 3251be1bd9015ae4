import Foundation
import Synchronization

/// Opens one source for every job attached to its `SourceTask`. With a cache, it first learns
/// the source's digest and serves each job whose output is already cached, so a source whose
/// outputs are all cached is never decoded. For the rest: header, shrink-on-load, orientation.
/// Jobs whose shrink-on-load agrees share one decode, at the largest scale any of them needs;
/// with several jobs the pixels are decoded once into memory, with one they stay lazy and
/// stream through that job's encode.
final class DecodeOperation: Operation, @unchecked Sendable {
    let source: SourceLocation
    /// How the source is opened; a failed render re-reads it the same way to tell a broken
    /// source from a failed encode.
    let decoder: SourceDecoder
    /// Set by the owning task right after creation; weak so the pair does not leak.
    weak var task: SourceTask?
    /// Called when the decode starts, so that the registry stops offering the task.
    var onStart: (@Sendable (SourceTask) -> Void)?
    private let outcome = Mutex<Result<DecodedImage, ThumbnailFailure>?>(nil)
    private let outcomes = Mutex<[ObjectIdentifier: Result<DecodedImage, ThumbnailFailure>]>([:])
    private let startedAt = Mutex<ContinuousClock.Instant?>(nil)
    private let download: DownloadOperation?
    private let cached: CachedOutputs?
    /// The run's stop button: stops the decode's reads, hashing and fetches when pressed.
    let cancellation: Cancellation?

    /// The decoded image for `job`, or the failure; nil if the operation was cancelled before
    /// it ran, or the job was served from the cache.
    func result(for job: Job) -> Result<DecodedImage, ThumbnailFailure>? {
        outcomes.withLock { $0[ObjectIdentifier(job)] } ?? outcome.withLock { $0 }
    }
    /// When the decode began, for the jobs' stage times.
    var started: ContinuousClock.Instant? { startedAt.withLock { $0 } }

    init(source: SourceLocation, decoder: SourceDecoder, download: DownloadOperation?,
         cached: CachedOutputs?, cancellation: Cancellation?) {
        self.source = source
        self.decoder = decoder
        self.download = download
        self.cached = cached
        self.cancellation = cancellation
    }

    override func main() {
        guard let task, !isCancelled else { return }
        startedAt.withLock { $0 = .now }
        onStart?(task)
        var jobs = task.close().filter { !$0.isFinished }
        guard !jobs.isEmpty else { return }
        let src = jobs[0].request.sourceText
        let bytes: SourceBytes
        switch sourceBytes(for: jobs) {
        case .failure(let failure):
            return outcome.withLock { $0 = .failure(failure) }
        case .success(let found):
            bytes = found
        }
        // Hashing a large file or fetching again takes time: rows may have ended meanwhile.
        jobs = jobs.filter { !$0.isFinished }
        guard !jobs.isEmpty, cancellation?.isCancelled != true else { return }
        jobs.forEach { $0.record(origin: bytes.origin, digest: bytes.digest) }
        var (path, digest, keepAlive) = (bytes.path, bytes.digest, bytes.file)
        let stamp = bytes.stamp
        if let cached, let known = digest {
            jobs = jobs.filter { !cached.serve($0, sourceDigest: known) }
            guard !jobs.isEmpty else { return }
            if !bytes.verified {
                switch cached.checkStoredSource(known, download: download, cancellation: cancellation) {
                case .failure(let failure):
                    return outcome.withLock { $0 = .failure(.fetch(failure, src: src)) }
                case .success(let replacement?):
                    (path, digest, keepAlive) = (replacement.path, replacement.digest, replacement.file)
                    jobs.forEach { $0.record(origin: .fetched, digest: replacement.digest) }
                case .success(nil):
                    break
                }
            }
        }
        let decodeJobs = jobs
        // Opening (the sniff and the header) and decoding are one stage under `--timeout`;
        // one that ignores the deadline still ends its rows on time (StageWatch).
        do {
            try StageWatch.run("open", seconds: decoder.limits.seconds, cancellation: cancellation,
                               onOverrun: { error in
                decodeJobs.forEach { $0.fail(.imaging(error, src: src, stage: .decodeFailed)) }
            }) { watch throws(ImagingError) in
                try decodeInGroups(path, for: jobs, digest: digest, stamp: stamp, keepAlive: keepAlive, watch: watch)
            }
        } catch {
            outcome.withLock { $0 = .failure(.imaging(error, src: src, stage: .decodeFailed)) }
        }
        VipsRuntime.releaseThreadResources()
    }

    /// Where the source's bytes are and what they are: a local file (hashed when the cache is
    /// on and its stamp is not on record), or the download's result.
    private func sourceBytes(for jobs: [Job]) -> Result<SourceBytes, ThumbnailFailure> {
        let src = jobs[0].request.sourceText
        switch source {
        case .file(let local):
            if let failure = LocalFileCheck.failure(path: local, src: src,
                                                    maxBytes: decoder.limits.maxInputBytes) {
                return .failure(failure)
            }
            let identified = cached?.cache.files.digest(of: local, cancellation: cancellation)
            FaultInjection.pauseAfterHashing()
            return .success(SourceBytes(path: local, digest: identified?.digest, origin: .local,
                                        verified: true, file: nil, stamp: identified?.stamp))
        case .remote:
            if let started = download?.started { jobs.forEach { $0.record(\.download, since: started) } }
            switch download?.result {
            case nil:
                return .failure(ThumbnailFailure(.cancelled, "\(src): cancelled"))
            case .failure(let failure):
                let info = RowResult.HTTPInfo(status: failure.status, bytes: 0, attempts: failure.attempts)
                jobs.forEach { $0.record(http: info) }
                return .failure(.fetch(failure, src: src))
            case .success(let downloaded):
                if let r = downloaded.response {
                    let info = RowResult.HTTPInfo(status: r.status, bytes: r.bytes, attempts: r.attempts)
                    jobs.forEach { $0.record(http: info) }
                }
                return .success(SourceBytes(
                    path: downloaded.path, digest: cached == nil ? nil : downloaded.digest,
                    origin: downloaded.origin, verified: downloaded.verified, file: downloaded.file))
            }
        }
    }

    /// Decodes once per group of jobs whose shrink-on-load (and wish for every frame)
    /// agrees, usually one group, so that no row's pixels depend on which other rows shared
    /// the decode. The file is opened once: at most one group (the one that loads at full
    /// size) reads the opened image itself; the others load again with their own settings.
    /// Throws only what ends every job: a source that cannot be opened, or a timeout.
    private func decodeInGroups(_ path: String, for jobs: [Job], digest: String?,
                                stamp: FileIndex.Stamp?, keepAlive: TemporaryDownload?,
                                watch: StageWatch) throws(ImagingError) {
        let opened = try decoder.open(path: path)
        watch.enter("decode")
        let header = opened.header
        var size = stat()
        let info = RowResult.SourceInfo(
            bytes: stat(path, &size) == 0 ? Int64(size.st_size) : 0,
            width: header.orientedWidth, height: header.orientedHeight,
            format: header.loader.replacingOccurrences(of: "load", with: ""), frames: header.frames)
        var plans: [ObjectIdentifier: ThumbnailGeometry] = [:]
        var accepted: [Job] = []
        for job in jobs {
            let plan = ThumbnailGeometry(sourceWidth: header.orientedWidth,
                                         sourceHeight: header.orientedHeight, spec: job.request.spec)
            if let failure = outputSizeFailure(plan, job: job) {
                outcomes.withLock { $0[ObjectIdentifier(job)] = .failure(failure) }
            } else {
                plans[ObjectIdentifier(job)] = plan
                accepted.append(job)
            }
        }
        func scale(_ job: Job) -> Double { plans[ObjectIdentifier(job)]?.requiredScale ?? 1 }
        func allFrames(_ job: Job) -> Bool {
            let request = job.request
            return request.spec.animated && SourceDecoder.canAnimate(header)
                && FormatResolver.resolve(request.spec.format, outTemplate: request.outTemplate,
                                          source: header.format).canAnimate
        }
        let groups = Dictionary(grouping: accepted) {
            DecodeKey(scale: ShrinkOnLoad.loadedScale(loader: header.loader, requiredScale: scale($0),
                                                  heifThumbnailScale: opened.heifThumbnailScale),
                      allFrames: allFrames($0))
        }
        // Every frame of an animation held in memory for sharing would cost frames × width ×
        // height × bands bytes (192 MB for 400 frames of 400×300); decoding it again per row
        // streams in constant memory, and GIF and WebP decode fast.
        let shares = groups.flatMap { key, group in key.allFrames ? group.map { [$0] } : [group] }
        for group in shares {
            let allFrames = allFrames(group[0])
            let result = decode(opened, for: group, scale: group.map(scale).max() ?? 1,
                                allFrames: allFrames, digest: digest, keepAlive: keepAlive, watch: watch)
                .map { decoded in
                    var decoded = decoded
                    decoded.sourceStamp = stamp
                    return decoded
                }
            // A decode killed by the deadline failed because of it: every row of the stage
            // reports the timeout, not the libvips error the kill caused.
            if case .failure = result, watch.isPastDeadline {
                throw .timedOut(operation: "decode", seconds: decoder.limits.seconds)
            }
            if case .success = result { group.forEach { $0.loaded(info) } }
            outcomes.withLock { outcomes in
                for job in group { outcomes[ObjectIdentifier(job)] = result }
            }
        }
    }

    /// What decodes alike: the loader's shrink and whether every frame is loaded.
    private struct DecodeKey: Hashable {
        var scale: Double
        var allFrames: Bool
    }

    /// The failure of a job whose output would be wider or taller than `--max-output-size`.
    private func outputSizeFailure(_ plan: ThumbnailGeometry, job: Job) -> ThumbnailFailure? {
        let limit = decoder.limits.maxOutputDimension
        guard plan.canvasWidth > limit || plan.canvasHeight > limit else { return nil }
        return ThumbnailFailure(.tooLarge, "\(job.request.sourceText): the output would be "
                                + "\(plan.canvasWidth)×\(plan.canvasHeight), over the limit of "
                                + "\(limit) pixels a side (--max-output-size)")
    }

    private func decode(_ opened: SourceDecoder.OpenedSource, for jobs: [Job], scale: Double,
                        allFrames: Bool, digest: String?, keepAlive: TemporaryDownload?,
                        watch: StageWatch) -> Result<DecodedImage, ThumbnailFailure>
    {
        do {
            var decoded = try decoder.decode(opened, requiredScale: scale, allFrames: allFrames)
            if jobs.count > 1 {
                let own = try decoded.image.copied()
                watch.enter("decode", evaluating: own)
                let pixels = try own.copiedToMemory()
                watch.enter("decode")
                decoded = DecodedImage(image: pixels, header: opened.header, frames: decoded.frames,
                                       isInMemory: true, path: decoded.path)
            }
            decoded.keepAlive = keepAlive
            decoded.sourceDigest = digest
            return .success(decoded)
        } catch {
            return .failure(.imaging(error, src: jobs[0].request.sourceText, stage: .decodeFailed))
        }
    }
}

/// A source's bytes, found: where they are, their digest, and how they were got.
struct SourceBytes {
    var path: String
    /// The SHA-256 of the bytes; nil without a cache (nothing needs it).
    var digest: String?
    var origin: SourceOrigin
    /// Whether the bytes are known to match `digest`.
    var verified: Bool
    /// A temporary download to keep until the pixels are read.
    var file: TemporaryDownload?
    /// A local file's stamp when it was hashed: its outputs are cached under `digest` only if
    /// the file still has it once they are made.
    var stamp: FileIndex.Stamp?
}

/// Checks a local source before libvips sees it, for errors that name the real problem.
enum LocalFileCheck {
    /// The failure for `path`, or nil when it is a readable regular file of at most `maxBytes`.
    static func failure(path: String, src: String, maxBytes: Int64) -> ThumbnailFailure? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return ThumbnailFailure(.sourceNotFound, "\(src): no such file (\(path))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return ThumbnailFailure(.sourceUnreadable, "\(src): not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            return ThumbnailFailure(.sourceUnreadable, "\(src): permission denied")
        }
        guard info.st_size > 0 else {
            return ThumbnailFailure(.unsupportedFormat, "\(src): the file is empty")
        }
        guard Int64(info.st_size) <= maxBytes else {
            return ThumbnailFailure(.tooLarge, "\(src): \(info.st_size) bytes is over the limit of "
                                    + "\(maxBytes) (--max-bytes)")
        }
        return nil
    }
}
