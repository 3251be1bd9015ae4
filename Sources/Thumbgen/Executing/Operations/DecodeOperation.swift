import Foundation
import Synchronization

/// Opens one source for the jobs its `IdentifyOperation` hands over: header, shrink-on-load,
/// orientation. Jobs whose shrink-on-load agrees share one decode, at the largest scale any of
/// them needs; with several jobs the pixels are decoded once into memory, with one they stay
/// lazy and stream through that job's encode.
final class DecodeOperation: Operation, @unchecked Sendable {
    /// How the source is opened.
    let decoder: SourceDecoder
    /// What to decode, once the identification has run.
    private let handover: @Sendable () -> IdentifyOperation.Handover?
    private let outcome = Mutex<Result<DecodedRow, ThumbnailFailure>?>(nil)
    private let outcomes = Mutex<[ObjectIdentifier: Result<DecodedRow, ThumbnailFailure>]>([:])
    private let startedAt = Mutex<ContinuousClock.Instant?>(nil)
    /// The run's stop button: stops the decode when pressed.
    let cancellation: Cancellation?
    /// Asked, once the header is read, for the memory the decode needs (a worker asks its
    /// parent, which holds the run's `--max-memory` budget); throws to refuse it.
    var admitDecode: ((WorkerProtocol.Estimate) throws(ImagingError) -> Void)?

    /// What `job` renders from, or the failure; nil if the operation was cancelled before it
    /// ran, or the job never reached it (served from the cache, failed before).
    func result(for job: Job) -> Result<DecodedRow, ThumbnailFailure>? {
        outcomes.withLock { $0[ObjectIdentifier(job)] } ?? outcome.withLock { $0 }
    }
    /// When the decode began, for the jobs' stage times.
    var started: ContinuousClock.Instant? { startedAt.withLock { $0 } }

    /// Decodes with `decoder` what `identify` hands over (it runs after it).
    init(decoder: SourceDecoder, after identify: IdentifyOperation, cancellation: Cancellation?) {
        self.decoder = decoder
        self.handover = { identify.handover }
        self.cancellation = cancellation
        super.init()
        addDependency(identify)
    }

    /// Decodes with `decoder` what `handover` names, with nothing to wait for (a worker's unit).
    init(decoder: SourceDecoder, handover: IdentifyOperation.Handover, cancellation: Cancellation?) {
        self.decoder = decoder
        self.handover = { handover }
        self.cancellation = cancellation
        super.init()
    }

    override func main() {
        guard !isCancelled, let handover = handover() else { return }
        startedAt.withLock { $0 = .now }
        let jobs = handover.jobs.filter { !$0.isFinished }
        guard !jobs.isEmpty, cancellation?.isCancelled != true else { return }
        let src = jobs[0].request.sourceText
        let bytes = handover.bytes
        // Opening (the sniff and the header) and decoding are one stage under `--timeout`;
        // one that ignores the deadline still ends its rows on time (StageWatch).
        do {
            try StageWatch.run("open", seconds: decoder.limits.seconds, cancellation: cancellation,
                               onOverrun: { error in
                jobs.forEach { $0.fail(.imaging(error, src: src, stage: .decodeFailed)) }
            }) { watch throws(ImagingError) in
                try decodeInGroups(bytes.path, for: jobs, digest: bytes.digest, stamp: bytes.stamp,
                                   keepAlive: bytes.file, watch: watch)
            }
        } catch {
            outcome.withLock { $0 = .failure(.imaging(error, src: src, stage: .decodeFailed)) }
        }
        VipsRuntime.releaseThreadResources()
    }

    /// Decodes once per group of jobs whose shrink-on-load (and wish for every frame)
    /// agrees, usually one group, so that no row's pixels depend on which other rows shared
    /// the decode. The file is opened once: at most one group (the one that loads at full
    /// size) reads the opened image itself; the others load again with their own settings.
    /// Throws only what ends every job: a source that cannot be opened, or a timeout.
    private func decodeInGroups(_ path: String, for jobs: [Job], digest: String?,
                                stamp: FileIndex.Stamp?, keepAlive: TemporaryDownload?,
                                watch: StageWatch) throws(ImagingError) {
        StageReport.enter(.open)
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
        func format(_ job: Job) -> OutputFormat {
            FormatResolver.resolve(job.request.spec.format, outTemplate: job.request.outTemplate,
                                   source: header.format)
        }
        func allFrames(_ job: Job) -> Bool {
            job.request.spec.animated && SourceDecoder.canAnimate(header) && format(job).canAnimate
        }
        let groups = Dictionary(grouping: accepted) {
            DecodeKey(scale: ShrinkOnLoad.loadedScale(loader: header.loader, requiredScale: scale($0),
                                                  mode: $0.request.spec.shrinkOnLoad,
                                                  heifThumbnailScale: opened.heifThumbnailScale),
                      allFrames: allFrames($0))
        }
        if let admitDecode {
            try admitDecode(DecodeEstimate.of(header, groups: groups.keys.map { ($0.scale, $0.allFrames) }))
        }
        StageReport.enter(.decode)
        // Every frame of an animation held in memory for sharing would cost frames × width ×
        // height × bands bytes (192 MB for 400 frames of 400×300); decoding it again per row
        // streams in constant memory, and GIF and WebP decode fast.
        let shares = groups.flatMap { key, group in key.allFrames ? group.map { [$0] } : [group] }
        for group in shares {
            let allFrames = allFrames(group[0])
            // The row that needs the most pixels decides, by its own mode: every row of the
            // group loads at the same scale, so that row's choice is each row's choice.
            let largest = group.max { scale($0) < scale($1) } ?? group[0]
            func passesThrough(_ job: Job) -> Bool {
                guard let plan = plans[ObjectIdentifier(job)] else { return false }
                return PassThrough.applies(header, spec: job.request.spec, format: format(job), plan: plan)
            }
            // Rows that render alike (`SharedScale.Key`: a size in several formats) share their
            // scaled pixels; the decoded pixels go into memory only when rows read them
            // differently, else they stream once into the shared scaled pixels.
            func key(_ job: Job, _ decoded: DecodedImage) -> SharedScale.Key? {
                guard let plan = plans[ObjectIdentifier(job)], !passesThrough(job) else { return nil }
                return ThumbnailRenderer.scaleKey(decoded, spec: job.request.spec, plan: plan, format: format(job))
            }
            var result = decode(opened, for: group, scale: scale(largest),
                                shrinkOnLoad: largest.request.spec.shrinkOnLoad, allFrames: allFrames,
                                readsApart: { decoded in Set(group.map { key($0, decoded) }).count > 1 },
                                digest: digest, keepAlive: keepAlive, watch: watch)
                .map { decoded in
                    var decoded = decoded
                    decoded.sourceStamp = stamp
                    return decoded
                }
            if case .success(let decoded) = result, !decoded.isInMemory,
               let first = group.first(where: passesThrough), let path = decoded.path,
               let error = decoder.decodeError(path: path, watch: watch) {
                // The bytes go out as they are, so they must decode cleanly: lazy pixels are
                // read through here, where a broken source is a decode failure (pixels in
                // memory were read whole already).
                result = .failure(.imaging(error, src: first.request.sourceText, stage: .decodeFailed))
            }
            var shared: [SharedScale.Key: SharedScale] = [:]
            if case .success(let decoded) = result {
                let keys = group.compactMap { key($0, decoded) }
                for (key, count) in Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +) where count > 1 {
                    shared[key] = SharedScale()
                }
            }
            // A decode killed by the deadline failed because of it: every row of the stage
            // reports the timeout, not the libvips error the kill caused.
            if case .failure = result, watch.isPastDeadline {
                throw .timedOut(operation: "decode", seconds: decoder.limits.seconds)
            }
            if case .success = result { group.forEach { $0.loaded(info) } }
            outcomes.withLock { outcomes in
                for job in group {
                    guard let plan = plans[ObjectIdentifier(job)] else { continue }
                    outcomes[ObjectIdentifier(job)] = result.map {
                        DecodedRow(decoded: $0, geometry: plan, format: format(job), passesThrough: passesThrough(job),
                                   sharedScale: key(job, $0).flatMap { shared[$0] })
                    }
                }
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

    /// Decodes `opened` for `jobs`, into memory when `readsApart` says the jobs read its
    /// pixels in more than one way.
    private func decode(_ opened: SourceDecoder.OpenedSource, for jobs: [Job], scale: Double,
                        shrinkOnLoad: ShrinkOnLoadMode, allFrames: Bool, readsApart: (DecodedImage) -> Bool,
                        digest: String?, keepAlive: TemporaryDownload?,
                        watch: StageWatch) -> Result<DecodedImage, ThumbnailFailure>
    {
        do {
            var decoded = try decoder.decode(opened, requiredScale: scale, shrinkOnLoad: shrinkOnLoad,
                                             allFrames: allFrames)
            if jobs.count > 1 && readsApart(decoded) {
                let own = try decoded.image.copied()
                watch.enter("decode", evaluating: own)
                let pixels = try own.copiedToMemory()
                watch.enter("decode")
                decoded = DecodedImage(image: pixels, header: opened.header, frames: decoded.frames,
                                       isInMemory: true, path: decoded.path)
            }
            decoded.keepAlive = keepAlive
            decoded.sourceDigest = digest
            if !decoded.isInMemory, let path = decoded.path {
                // Lazy pixels fail in the render when the source is broken; the render then
                // asks this whether the source is at fault, by reading it again on its own.
                let decoder = decoder
                decoded.faultCheck = { watch in decoder.decodeError(path: path, watch: watch) }
            }
            return .success(decoded)
        } catch {
            return .failure(.imaging(error, src: jobs[0].request.sourceText, stage: .decodeFailed))
        }
    }
}

/// What one row renders from: the decoded source (perhaps shared), its layout and output
/// format (worked out once, here), and whether the source's own bytes are the output.
struct DecodedRow: Sendable {
    var decoded: DecodedImage
    /// Where the row's output comes from in the source, and its size.
    var geometry: ThumbnailGeometry
    /// The output format, `auto` resolved.
    var format: OutputFormat
    /// Whether the source passes through (`PassThrough`): checked to decode cleanly already.
    var passesThrough: Bool
    /// The scaled pixels this row shares with others of its decode, if any.
    var sharedScale: SharedScale?
}
