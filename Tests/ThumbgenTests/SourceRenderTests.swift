import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// `SourceRender`, the imaging of one source and its rows, called as the plain function it is:
/// no pipeline, no process, no cache.
@Suite("SourceRender: one source, its rows, their outputs")
struct SourceRenderTests {
    /// Everything a listener heard, by row.
    final class Heard: Sendable {
        private let state = Mutex<(outputs: [Int: SourceRender.Output], failures: [Int: ThumbnailFailure],
                                   ends: [Int], loaded: [Int], stages: [String])>(([:], [:], [], [], []))

        var outputs: [Int: SourceRender.Output] { state.withLock { $0.outputs } }
        var failures: [Int: ThumbnailFailure] { state.withLock { $0.failures } }
        /// Each row once per output or failure it got, in the order they came.
        var ends: [Int] { state.withLock { $0.ends } }
        var loaded: [Int] { state.withLock { $0.loaded } }
        /// "stage" or "stage:row", in order.
        var stages: [String] { state.withLock { $0.stages } }

        func listener(wants: @escaping @Sendable (Int) -> Bool = { _ in true }) -> SourceRender.Listener {
            SourceRender.Listener(
                wants: wants,
                stage: { stage, row in self.state.withLock { $0.stages.append(row.map { "\(stage):\($0)" } ?? "\(stage)") } },
                loaded: { rows, _ in self.state.withLock { $0.loaded.append(contentsOf: rows) } },
                output: { row, output in self.state.withLock { $0.outputs[row] = output; $0.ends.append(row) } },
                failure: { row, failure in self.state.withLock { $0.failures[row] = failure; $0.ends.append(row) } })
        }
    }

    static func row(_ width: Int, _ format: OutputFormat, src: String = "photo.jpg") -> SourceRender.Row {
        var spec = ThumbnailSpec()
        spec.box = TargetBox(width: width, height: nil)
        spec.format = .fixed(format)
        return SourceRender.Row(spec: spec, outTemplate: "{name}.{ext}", sourceText: src)
    }

    /// A 1600×1000 JPEG with detail everywhere, written in `folder`.
    static func photo(in folder: TemporaryDirectory) throws -> String {
        let image = RawImage(width: 1600, height: 1000) { x, y in
            Colour(r: UInt8(x * 255 / 1599), g: UInt8((x ^ y) & 0xff), b: UInt8((x * 7 + y * 3) % 256))
        }
        return try folder.write(try image.encoded(as: .jpeg), to: "photo.jpg").path
    }

    @Test("The static-site rows (320, 640, 1280 × WebP, JPEG) each end once, with outputs of their own size")
    func staticSiteRows() throws {
        let folder = try TemporaryDirectory("source-render")
        let path = try Self.photo(in: folder)
        let rows = [320, 640, 1280].flatMap { width in [Self.row(width, .webp), Self.row(width, .jpeg)] }
        let heard = Heard()
        SourceRender(decoder: SourceDecoder()).run(path: path, rows: rows, listener: heard.listener())
        #expect(heard.failures.isEmpty, "\(heard.failures)")
        #expect(heard.ends.sorted() == Array(rows.indices))
        #expect(heard.loaded.sorted() == Array(rows.indices))
        for (index, row) in rows.enumerated() {
            let output = try #require(heard.outputs[index])
            #expect(output.width == row.spec.box.width && output.format == (index % 2 == 0 ? .webp : .jpeg))
            #expect(output.height == Int((Double(output.width) * 1000 / 1600).rounded()))
        }
        // The source is opened once, then decoded: one open and one decode stage for all rows.
        #expect(heard.stages.filter { $0 == "open" }.count == 1)
        #expect(heard.stages.filter { $0.hasPrefix("encode:") }.count == rows.count)
    }

    @Test("A row's bytes from its own call equal its bytes among the six rows of the workload")
    func aloneEqualsAmongSix() throws {
        let folder = try TemporaryDirectory("source-render")
        let path = try Self.photo(in: folder)
        let rows = [320, 640, 1280].flatMap { width in [Self.row(width, .webp), Self.row(width, .jpeg)] }
        let together = Heard()
        SourceRender(decoder: SourceDecoder()).run(path: path, rows: rows, listener: together.listener())
        for (index, row) in rows.enumerated() {
            let alone = Heard()
            SourceRender(decoder: SourceDecoder()).run(path: path, rows: [row], listener: alone.listener())
            let same = alone.outputs[0]?.data == together.outputs[index]?.data
            #expect(same, "row \(index) (\(row.spec.box.width ?? 0) px, \(row.spec.format)) differs alone")
        }
    }

    @Test("One row's failure is that row's: the others are made, and a refused decode fails them all")
    func failuresStayWithTheirRows() throws {
        let folder = try TemporaryDirectory("source-render")
        let path = try Self.photo(in: folder)
        var limits = ImagingLimits()
        limits.maxOutputDimension = 500
        let rows = [Self.row(320, .webp), Self.row(640, .jpeg), Self.row(100, .png)]
        let heard = Heard()
        SourceRender(decoder: SourceDecoder(limits: limits)).run(path: path, rows: rows, listener: heard.listener())
        #expect(heard.outputs.keys.sorted() == [0, 2])
        #expect(heard.failures[1]?.code == .tooLarge)
        #expect(heard.failures[1]?.message.hasPrefix("photo.jpg: the output would be 640×400") == true)

        var refusing = heard.listener()
        refusing.admit = { estimate throws(ImagingError) in throw .overLimit(reason: "no room for \(estimate.bytes)") }
        let refused = Heard()
        refusing.output = refused.listener().output
        refusing.failure = refused.listener().failure
        SourceRender(decoder: SourceDecoder()).run(path: path, rows: rows, listener: refusing)
        #expect(refused.ends.sorted() == [0, 1, 2])
        #expect(refused.failures.values.allSatisfy { $0.code == .tooLarge })
    }

    @Test("A missing file fails every row, each naming its own src; rows no longer wanted get nothing")
    func missingAndUnwanted() throws {
        let folder = try TemporaryDirectory("source-render")
        let rows = [Self.row(100, .webp, src: "a.jpg"), Self.row(50, .jpeg, src: "./a.jpg"), Self.row(20, .png)]
        let heard = Heard()
        SourceRender(decoder: SourceDecoder()).run(path: folder.file("gone.jpg").path, rows: rows,
                                                   listener: heard.listener(wants: { $0 != 2 }))
        #expect(heard.ends.sorted() == [0, 1])
        #expect(heard.failures[0]?.message.hasPrefix("a.jpg:") == true)
        #expect(heard.failures[1]?.message.hasPrefix("./a.jpg:") == true)
    }

    @Test("A row stuck past its deadline in code that ignores it fails, and another thread makes the rows after it")
    func stuckRowHandsOver() throws {
        let folder = try TemporaryDirectory("source-render")
        let path = try Self.photo(in: folder)
        var limits = ImagingLimits()
        limits.seconds = 1
        let release = DispatchSemaphore(value: 0)
        let secondEnded = DispatchSemaphore(value: 0)
        let heard = Heard()
        var listener = heard.listener()
        let record = listener.stage
        // Row 0's encode blocks here, on the rendering thread, as C code that never looks at
        // libvips' kill flag would (libaom inside an AVIF encode).
        listener.stage = { stage, row in
            record(stage, row)
            if stage == .encode && row == 0 { release.wait() }
        }
        let output = listener.output, failure = listener.failure
        listener.output = { row, made in output(row, made); if row == 1 { secondEnded.signal() } }
        listener.failure = { row, why in failure(row, why); if row == 1 { secondEnded.signal() } }
        let rows = [Self.row(320, .webp), Self.row(160, .jpeg)]
        let finished = DispatchSemaphore(value: 0)
        let (render, stuckListener) = (SourceRender(decoder: SourceDecoder(limits: limits)), listener)
        Thread.detachNewThread {
            render.run(path: path, rows: rows, listener: stuckListener)
            finished.signal()
        }
        // Row 1 ends while row 0's thread is still held: only another thread can have made it.
        let ended = secondEnded.wait(timeout: .now() + 60) == .success
        release.signal()
        #expect(ended, "the row after a stuck one waited for it")
        #expect(heard.failures[0]?.code == .timeout)
        #expect(heard.outputs[1]?.width == 160)
        #expect(finished.wait(timeout: .now() + 60) == .success)
        #expect(heard.ends.sorted() == [0, 1])
    }

    @Test("A cancelled run ends every wanted row as cancelled, without opening the file")
    func cancelled() throws {
        let folder = try TemporaryDirectory("source-render")
        let path = try Self.photo(in: folder)
        let cancellation = Cancellation()
        cancellation.cancel()
        let heard = Heard()
        SourceRender(decoder: SourceDecoder(), cancellation: cancellation)
            .run(path: path, rows: [Self.row(100, .webp), Self.row(50, .jpeg)], listener: heard.listener())
        #expect(heard.failures.values.map(\.code) == [.cancelled, .cancelled])
        #expect(heard.stages.isEmpty)
    }
}
