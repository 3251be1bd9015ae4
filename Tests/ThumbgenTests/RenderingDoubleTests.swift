import Foundation
import Testing
@testable import Thumbgen

/// The executor against a counting renderer (`CountingRenderer`), in process: how many renders
/// a run asks for, and what becomes of a row the imaging fails or forgets. Reaching these
/// through the binary would take a broken decoder.
@Suite("The executor against a counting renderer")
struct RenderingDoubleTests {
    /// A folder with one source, a cache, and pipelines run over them with a renderer.
    struct Bench {
        let folder: TemporaryDirectory
        let cache: ThumbnailCache
        let source: Thumbgen.SourceLocation

        init() throws {
            folder = try TemporaryDirectory("rendering-double")
            cache = try ThumbnailCache(directory: folder.file("cache"))
            let url = try folder.write(try RawImage.quadrants(width: 400, height: 300).encoded(as: .png), to: "a.png")
            source = .file(url.path)
        }

        /// Runs the rows `outs` (one width each, from the one source) through a pipeline that
        /// renders with `renderer`; returns the results in row order.
        func run(_ outs: [(out: String, width: Int)], renderer: CountingRenderer) throws -> [RowResult] {
            var configuration = PipelineConfiguration(outputDirectory: folder.file("out"))
            configuration.cache = cache
            configuration.rendering = renderer
            return try PipelineRun.widths(outs, of: source, sourceText: "a.png", configuration: configuration)
        }

        func exists(_ out: String) -> Bool {
            FileManager.default.fileExists(atPath: folder.file("out/" + out).path)
        }
    }

    static let rows = [(out: "a-64.png", width: 64), (out: "a-128.png", width: 128), (out: "a-200.png", width: 200)]

    @Test("A source's rows are rendered in one call; a second run over the same cache renders nothing")
    func oneRenderThenNone() throws {
        let bench = try Bench()
        let first = CountingRenderer()
        let written = try bench.run(Self.rows, renderer: first)
        #expect(written.map(\.status) == [.written, .written, .written], "\(written)")
        #expect(written.map(\.width) == [64, 128, 200])
        #expect(first.calls == [.init(file: "a.png", rows: Self.rows.map(\.out))])

        let second = CountingRenderer()
        let served = try bench.run(Self.rows, renderer: second)
        #expect(served.map(\.status) == [.unchanged, .unchanged, .unchanged], "\(served)")
        #expect(served.map(\.cache) == [.hit, .hit, .hit])
        #expect(second.calls.isEmpty)
    }

    @Test("A row the imaging ends with neither output nor failure still ends, as encode_failed; its neighbours are written")
    func forgottenRowEnds() throws {
        let bench = try Bench()
        let renderer = CountingRenderer(swallowing: ["a-128.png"])
        let results = try bench.run(Self.rows, renderer: renderer)
        #expect(results.map(\.status) == [.written, .failed, .written], "\(results)")
        #expect(results[1].error?.code == .encodeFailed)
        #expect(results[1].error?.message == "a.png: no output was made")
        #expect(bench.exists("a-64.png") && !bench.exists("a-128.png") && bench.exists("a-200.png"))
        #expect(renderer.calls.count == 1)
    }

    @Test("A failure the imaging gives one row ends that row alone, with its code and message, and leaves nothing at its path")
    func failedRowEndsAlone() throws {
        let bench = try Bench()
        let failure = ThumbnailFailure(.decodeFailed, "a.png: the double refused this row")
        let renderer = CountingRenderer(failing: ["a-64.png": failure])
        let results = try bench.run(Self.rows, renderer: renderer)
        #expect(results.map(\.status) == [.failed, .written, .written], "\(results)")
        #expect(results[0].error?.code == .decodeFailed)
        #expect(results[0].error?.message == failure.message)
        #expect(!bench.exists("a-64.png") && bench.exists("a-128.png") && bench.exists("a-200.png"))

        // The row was not cached as made: the next run renders it alone.
        let again = CountingRenderer()
        let rerun = try bench.run(Self.rows, renderer: again)
        #expect(rerun.map(\.status) == [.written, .unchanged, .unchanged], "\(rerun)")
        #expect(again.calls == [.init(file: "a.png", rows: ["a-64.png"])])
    }
}
