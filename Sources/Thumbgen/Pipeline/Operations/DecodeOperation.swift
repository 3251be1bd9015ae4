import Foundation
import Synchronization

/// Opens one source for every job attached to its `SourceTask`: header, shrink-on-load to the
/// largest scale any of them needs, orientation. With several jobs the pixels are decoded once
/// into memory; with one, they stay lazy and stream through that job's encode.
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
    private let startedAt = Mutex<ContinuousClock.Instant?>(nil)

    /// The decoded image or the failure; nil if the operation was cancelled before it ran.
    var result: Result<DecodedImage, ThumbnailFailure>? { outcome.withLock { $0 } }
    /// When the decode began, for the jobs' stage times.
    var started: ContinuousClock.Instant? { startedAt.withLock { $0 } }

    private let download: DownloadOperation?

    init(source: SourceLocation, decoder: SourceDecoder, download: DownloadOperation?) {
        self.source = source
        self.decoder = decoder
        self.download = download
    }

    override func main() {
        guard let task, !isCancelled else { return }
        startedAt.withLock { $0 = .now }
        onStart?(task)
        let jobs = task.close().filter { !$0.isFinished }
        guard !jobs.isEmpty else { return }
        outcome.withLock { $0 = decode(for: jobs) }
        VipsRuntime.releaseThreadResources()
    }

    private func decode(for jobs: [Job]) -> Result<DecodedImage, ThumbnailFailure> {
        let src = jobs[0].request.sourceText
        let path: String
        var keepAlive: DownloadedFile?
        switch source {
        case .file(let local):
            if let failure = LocalFileCheck.failure(path: local, src: src) { return .failure(failure) }
            path = local
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
                let r = downloaded.response
                let info = RowResult.HTTPInfo(status: r.status, bytes: r.bytes, attempts: r.attempts)
                jobs.forEach { $0.record(http: info) }
                path = downloaded.file.path
                keepAlive = downloaded.file
            }
        }
        do {
            let opened = try decoder.open(path: path)
            let header = opened.header
            let scale = jobs.map {
                ThumbnailGeometry(sourceWidth: header.orientedWidth,
                                  sourceHeight: header.orientedHeight,
                                  spec: $0.request.spec).requiredScale
            }.max() ?? 1
            var decoded = try decoder.decode(opened, requiredScale: scale)
            if jobs.count > 1 {
                decoded = DecodedImage(image: try decoded.image.copiedToMemory(), header: header,
                                       isInMemory: true)
            }
            decoded.keepAlive = keepAlive
            return .success(decoded)
        } catch {
            return .failure(.imaging(error, src: src, stage: .decodeFailed))
        }
    }
}

/// Checks a local source before libvips sees it, for errors that name the real problem.
enum LocalFileCheck {
    /// The failure for `path`, or nil when it is a readable regular file.
    static func failure(path: String, src: String) -> ThumbnailFailure? {
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
        return nil
    }
}
