import Foundation
import Testing
@testable import Thumbgen

/// The executor against a counting fetcher (`CountingFetcher`), in process: how many requests
/// a run makes, and where a body goes when the cache's file system is full (which through the
/// binary needs root, to mount a small file system).
@Suite("The executor against a counting fetcher")
struct FetchingDoubleTests {
    static let base = "https://images.example/"

    /// Runs one row per `(file, width)` from `base` through a pipeline with a cache in `folder`
    /// that fetches with `fetcher`; returns the results in row order.
    static func run(_ rows: [(file: String, width: Int)], in folder: TemporaryDirectory,
                    fetcher: CountingFetcher) throws -> [RowResult] {
        var configuration = PipelineConfiguration(outputDirectory: folder.file("out"))
        configuration.cache = try ThumbnailCache(directory: folder.file("cache"))
        configuration.fetching = fetcher
        let collector = ResultCollector()
        let pipeline = try Pipeline(configuration: configuration, onResult: collector.add)
        for (index, row) in rows.enumerated() {
            var spec = ThumbnailSpec()
            spec.box = TargetBox(width: row.width, height: nil)
            let url = try #require(URL(string: base + row.file))
            pipeline.submit(ThumbnailRequest(row: index + 2, id: String(index + 2), sourceText: url.absoluteString,
                                             source: .url(url), outTemplate: "\(row.width)-\(row.file)", spec: spec))
        }
        pipeline.waitUntilFinished()
        return collector.all.sorted { $0.row < $1.row }
    }

    static func png() throws -> Data { try RawImage.quadrants(width: 300, height: 200).encoded(as: .png) }

    @Test("Rows naming one URL share one request; a second run while the body is fresh asks nothing; a 404 fails its rows alone")
    func requestsCounted() throws {
        let folder = try TemporaryDirectory("fetching-double")
        let fetcher = CountingFetcher(bodies: ["a.png": try Self.png()])
        let rows = [(file: "a.png", width: 64), (file: "a.png", width: 128), (file: "gone.png", width: 64)]
        let first = try Self.run(rows, in: folder, fetcher: fetcher)
        #expect(first.map(\.status) == [.written, .written, .failed], "\(first)")
        #expect(first[2].error?.code == .httpError)
        #expect(first[2].http?.status == 404)
        #expect(Set(fetcher.requests.map(\.url)) == [Self.base + "a.png", Self.base + "gone.png"])
        #expect(fetcher.requests.count == 2)

        let again = CountingFetcher(bodies: ["a.png": try Self.png()])
        let second = try Self.run(Array(rows.prefix(2)), in: folder, fetcher: again)
        #expect(second.map(\.status) == [.unchanged, .unchanged], "\(second)")
        #expect(again.requests.isEmpty)
    }

    @Test("A body the cache's full file system refuses is got once more outside the cache, and the row is written")
    func fullCacheFileSystem() throws {
        let folder = try TemporaryDirectory("fetching-double-full")
        let cacheFolder = folder.file("cache").path
        let fetcher = CountingFetcher(bodies: ["a.png": try Self.png()], fullUnder: cacheFolder)
        let results = try Self.run([(file: "a.png", width: 64)], in: folder, fetcher: fetcher)
        #expect(results.map(\.status) == [.written], "\(results)")
        #expect(results.first?.width == 64)
        let requests = fetcher.requests
        #expect(requests.count == 2)
        #expect(requests.first?.folder.hasPrefix(cacheFolder) == true)
        #expect(requests.last.map { !$0.folder.hasPrefix(cacheFolder) } == true, "\(requests)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("out").path) == ["64-a.png"])
    }
}
