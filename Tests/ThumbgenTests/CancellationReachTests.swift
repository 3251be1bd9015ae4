import CVips
import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// A cancelled run stops the work that used to run on to its end after Ctrl-C: evaluations
/// (a shared decode's copy into memory, the re-read that attributes an error, encodes) and the
/// hashing of a local file.
@Suite("Cancellation reaches every stage")
struct CancellationReachTests {
    /// A lazy image that takes a while to compute: a large resize of generated noise.
    static func slowImage() throws -> VipsImageRef {
        let raw = StageTimeoutTests.noise(width: 1000, height: 1000)
        let pointer = try raw.vipsImage()
        return try VipsImageRef(owning: pointer).resized(hscale: 6, vscale: 6, kernel: .lanczos3)
    }

    @Test("An evaluation under a pressed button stops with an error instead of running to its end")
    func evaluationStops() throws {
        let cancellation = Cancellation()
        cancellation.cancel()
        let image = try Self.slowImage()
        #expect(throws: ImagingError.self) {
            try StageWatch.run("decode", seconds: 600, cancellation: cancellation, onOverrun: { _ in }) {
                watch throws(ImagingError) -> VipsImageRef in
                let own = try image.copied()
                watch.enter("decode", evaluating: own)
                return try own.copiedToMemory()
            }
        }
    }

    @Test("Pressing the button during an evaluation stops it")
    func evaluationStopsWhilstRunning() async throws {
        let cancellation = Cancellation()
        let image = try Self.slowImage()
        // Pressed from a thread of its own: a busy concurrency pool could wake a task too late.
        Thread.detachNewThread {
            usleep(200_000)
            cancellation.cancel()
        }
        let outcome = try await OffPool.run { () -> Bool in
            do {
                _ = try StageWatch.run("decode", seconds: 600, cancellation: cancellation, onOverrun: { _ in }) {
                    watch throws(ImagingError) -> VipsImageRef in
                    let own = try image.copied()
                    watch.enter("decode", evaluating: own)
                    return try own.copiedToMemory()
                }
                return false
            } catch {
                return true
            }
        }
        #expect(outcome, "the evaluation ran to its end after the button was pressed")
    }

    @Test("Hashing a local file stops when the button is pressed")
    func hashingStops() throws {
        let folder = try TemporaryDirectory("hash")
        let url = try folder.write(Data(repeating: 7, count: 3 << 20), to: "big.bin")
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        let cancellation = Cancellation()
        cancellation.cancel()
        #expect(ContentDigest.ofFile(descriptor: fd, until: cancellation) == nil)
        #expect(ContentDigest.ofFile(at: url.path) != nil)
    }

    @Test("A cancel and a file put in place never disagree: before the rename nothing is placed, after it the write's result stands")
    func cancelAgainstPlacement() throws {
        let folder = try TemporaryDirectory("placement")
        let writer = try AtomicFileWriter(root: folder.url)
        let request = ThumbnailRequest(row: 2, id: "2", sourceText: "a.png", source: .file("/a.png"),
                                       outTemplate: "out.jpg", spec: ThumbnailSpec())
        let plan = RowPlan(action: .render, step: .local, origin: .local)
        let ended = Mutex<[RowResult]>([])
        func job() -> Job { Job(request: request, plan: plan) { _, result in ended.withLock { $0.append(result) } } }

        // Cancelled first: the write is declined, and its temporary file is gone.
        let cancelled = job()
        cancelled.advance(.failed(.cancelled("a.png")))
        #expect(try writer.write(Data("one".utf8), to: "a.jpg", placing: cancelled.place) == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("a.jpg").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)

        // Placed first: a cancel arriving before the write's result is too late.
        let placed = job()
        #expect(try writer.write(Data("two".utf8), to: "b.jpg", placing: placed.place) == .written)
        placed.advance(.failed(.cancelled("a.png")))
        #expect(!placed.isFinished)
        var written = RowResult(row: 2, id: "2", src: "a.png", status: .written)
        written.out = "b.jpg"
        placed.advance(.written(written))
        #expect(ended.withLock { $0.map(\.status) } == [.cancelled, .written])
    }
}
