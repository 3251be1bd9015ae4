import Foundation
import Testing
@testable import Thumbgen

/// `Pipeline`, used as a library: rows naming the same source share one decode; each still
/// gets its own output.
@Suite("Pipeline: decode sharing")
struct DecodeSharingTests {
    /// A pipeline writing under a scratch folder, and the results it delivers.
    final class Harness: Sendable {
        let folder: TemporaryDirectory
        let pipeline: Pipeline
        private let collector = ResultCollector()

        /// `maxPendingRows`: the admission gate's limit, the default's when nil.
        init(maxPendingRows: Int? = nil) throws {
            folder = try TemporaryDirectory("pipeline")
            var configuration = PipelineConfiguration(outputDirectory: folder.file("out"))
            if let maxPendingRows { configuration.maxPendingRows = maxPendingRows }
            pipeline = try Pipeline(configuration: configuration, onResult: collector.add)
        }

        /// Every result delivered so far, in row order.
        var results: [RowResult] { collector.all.sorted { $0.row < $1.row } }

        /// A source image of `width`×`height` written as `name`.
        func source(_ name: String, width: Int = 400, height: Int = 300) throws -> Thumbgen.SourceLocation {
            let url = try folder.write(try RawImage.quadrants(width: width, height: height).encoded(as: .png),
                                       to: name)
            return .file(url.path)
        }

        /// A request for row `row`: `source` at `width` pixels wide, written as `out`.
        func request(_ row: Int, _ source: Thumbgen.SourceLocation, width: Int, out: String) -> ThumbnailRequest {
            var spec = ThumbnailSpec()
            spec.box = TargetBox(width: width, height: nil)
            return ThumbnailRequest(row: row, id: String(row), sourceText: source.description,
                                    source: source, outTemplate: out, spec: spec)
        }
    }

    @Test("Three rows naming one source decode it once and write three sizes")
    func sameSource() throws {
        let h = try Harness()
        let source = try h.source("a.png")
        for (row, width) in [(2, 200), (3, 100), (4, 40)] {
            h.pipeline.submit(h.request(row, source, width: width, out: "a-{w}x{h}.png"))
        }
        h.pipeline.waitUntilFinished()
        #expect(h.pipeline.decodeCount == 1)
        let results = h.results
        #expect(results.map(\.status) == [.written, .written, .written])
        #expect(results.map(\.width) == [200, 100, 40])
        #expect(results.map(\.height) == [150, 75, 30])
        #expect(results.map(\.out) == ["a-200x150.png", "a-100x75.png", "a-40x30.png"])
        for result in results {
            let image = try PixelImage.load(h.folder.file("out/\(result.out ?? "")"))
            #expect(image.width == result.width && image.height == result.height)
            #expect(image.pixel(image.width / 4, image.height / 4, is: .red, tolerance: 4))
        }
    }

    @Test("Rows naming different sources decode each once")
    func differentSources() throws {
        let h = try Harness()
        let a = try h.source("a.png"), b = try h.source("b.png", width: 200, height: 200)
        let c = try h.source("c.png", width: 100, height: 50)
        h.pipeline.submit(h.request(2, a, width: 50, out: "{name}.png"))
        h.pipeline.submit(h.request(3, b, width: 50, out: "{name}.png"))
        h.pipeline.submit(h.request(4, c, width: 50, out: "{name}.png"))
        h.pipeline.submit(h.request(5, a, width: 20, out: "{name}-small.png"))
        h.pipeline.waitUntilFinished()
        #expect(h.pipeline.decodeCount == 3)
        let results = h.results
        #expect(results.map(\.status) == [.written, .written, .written, .written])
        #expect(results.map(\.height) == [38, 50, 25, 15])
    }

    @Test("A source with more rows than the admission gate holds is still decoded once")
    func sourceWiderThanGate() throws {
        // Six rows a source, as `--size` with three widths and two formats makes, through a gate
        // of five: the sixth row of the first source finds the gate full. Made to wait, it would
        // find its source's decode started by the five before it, and decode the source again.
        // (A source's first row may take the gate's last place: its five others then need an
        // overdraft of five, the gate's limit.)
        let h = try Harness(maxPendingRows: 5)
        let sources = try ["a.png", "b.png", "c.png"].map { try h.source($0, width: 640, height: 480) }
        var row = 2
        for source in sources {
            for width in [320, 160, 80] {
                for format in ["png", "jpg"] {
                    h.pipeline.submit(h.request(row, source, width: width, out: "{name}-{w}.\(format)"))
                    row += 1
                }
            }
        }
        h.pipeline.waitUntilFinished()
        #expect(h.pipeline.decodeCount == 3)
        let results = h.results
        #expect(results.count == 18)
        #expect(results.allSatisfy { $0.status == .written })
        #expect(results.prefix(6).map(\.width) == [320, 320, 160, 160, 80, 80])
    }

    @Test("A shared source that fails fails every row that names it, once")
    func sharedFailure() throws {
        let h = try Harness()
        let missing = Thumbgen.SourceLocation.file(h.folder.file("missing.png").path)
        let good = try h.source("good.png")
        h.pipeline.submit(h.request(2, missing, width: 10, out: "m1.png"))
        h.pipeline.submit(h.request(3, good, width: 10, out: "g.png"))
        h.pipeline.submit(h.request(4, missing, width: 20, out: "m2.png"))
        h.pipeline.waitUntilFinished()
        // The missing file fails at the plan, before any operation is made for it.
        #expect(h.pipeline.decodeCount == 1)
        let results = h.results
        #expect(results.map(\.row) == [2, 3, 4])
        #expect(results.map(\.status) == [.failed, .written, .failed])
        #expect(results[0].error?.code == .sourceNotFound && results[2].error?.code == .sourceNotFound)
    }

    @Test("JPEG rows that shrink on load differently decode apart, and each row's bytes are its own")
    func differentShrinkOnLoad() throws {
        // 100 px wide decodes at 1/8 of 1600; 1200 px at full size: sharing one decode would
        // change the small row's pixels with its neighbours.
        func run(_ widths: [Int]) throws -> (Data, Int) {
            // Noise: flat colours come out alike whatever the decode scale; detail does not.
            try Self.noiseRun(width: 1600, height: 1200, widths: widths, reading: 100)
        }
        let (alone, aloneDecodes) = try run([100])
        let (beside, besideDecodes) = try run([100, 1200])
        #expect(aloneDecodes == 1 && besideDecodes == 1, "one decode task per source")
        #expect(alone == beside, "the 100 px row's bytes changed with the row beside it")
    }

    /// 1600×1203 at 256 px decodes at ¼ (400×301), and 301 rows to 192 put windows on mask
    /// boundaries, where libvips' streamed reduce and a position worked out afresh part: the
    /// row alone is resampled in C as that stream would have been, and beside a 128 px row
    /// (both from the JPEG's coefficients, held in memory) the same way.
    @Test("A row's bytes are the same alone and beside another size, where the resample hangs on libvips' strips")
    func heldAsStreamed() throws {
        func run(_ widths: [Int]) throws -> Data {
            try Self.noiseRun(width: 1600, height: 1203, widths: widths, reading: 256).output
        }
        let alone = try run([256])
        #expect(try run([256, 128]) == alone, "the 256 px row's bytes changed with the row beside it")
        #expect(try run([128, 256, 64]) == alone, "the 256 px row's bytes changed with the rows beside it")
    }

    /// A noise JPEG of `width`×`height` written at each of `widths` (as `w<width>.jpg`), every
    /// row written: the bytes of the output `reading` px wide, and the decodes the run made.
    static func noiseRun(width: Int, height: Int, widths: [Int], reading: Int) throws -> (output: Data, decodes: Int) {
        let h = try Harness()
        let jpeg = try StageTimeoutTests.noise(width: width, height: height).encoded(as: .jpeg)
        let source = Thumbgen.SourceLocation.file(try h.folder.write(jpeg, to: "a.jpg").path)
        for (index, width) in widths.enumerated() {
            h.pipeline.submit(h.request(index + 2, source, width: width, out: "w\(width).jpg"))
        }
        h.pipeline.waitUntilFinished()
        #expect(h.results.allSatisfy { $0.status == .written }, "\(h.results)")
        return (try Data(contentsOf: h.folder.file("out/w\(reading).jpg")), h.pipeline.decodeCount)
    }

    @Test("ManifestFeed feeds a manifest through the pipeline, bad rows rejected")
    func manifestRun() throws {
        let h = try Harness()
        _ = try h.source("a.png")
        let manifest = try h.folder.write("src,width,fit\na.png,100,\na.png,50,squash\na.png,60,\n", to: "m.csv")
        let reader = try ManifestReader(path: manifest.path)
        try ManifestFeed.run(reader, parser: RowParser(baseDirectory: reader.baseDirectory), pipeline: h.pipeline)
        let results = h.results
        #expect(results.map(\.row) == [2, 3, 4])
        #expect(results.map(\.status) == [.written, .failed, .written])
        #expect(results[1].error?.code == .invalidRow)
        #expect(h.pipeline.decodeCount == 1)
    }

    @Test("After cancel(), submitted rows end as cancelled and nothing is written")
    func cancelled() throws {
        let h = try Harness()
        let source = try h.source("a.png")
        h.pipeline.cancel()
        h.pipeline.submit(h.request(2, source, width: 10, out: "x.png"))
        h.pipeline.waitUntilFinished()
        #expect(h.results.map(\.status) == [.cancelled])
        #expect(h.results.first?.error?.code == .cancelled)
        #expect(h.folder.files(under: "out").isEmpty)
    }
}
