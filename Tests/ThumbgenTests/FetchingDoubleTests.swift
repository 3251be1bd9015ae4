import Foundation
import Testing
@testable import Thumbgen

/// The executor against a counting fetcher (`CountingFetcher`), in process: how many requests
/// a run makes, and where a body goes when the cache's file system is full (which through the
/// binary needs root, to mount a small file system).
@Suite("The executor against a counting fetcher")
struct FetchingDoubleTests {
    static let base = "https://images.example/"

    /// Runs `file` from `base` at each of `widths` (written as `WIDTH-FILE`) through a pipeline
    /// with a cache in `folder` that fetches with `fetcher`; returns the results in row order.
    static func run(_ file: String, widths: [Int], in folder: TemporaryDirectory,
                    fetcher: CountingFetcher) throws -> [RowResult] {
        var configuration = PipelineConfiguration(outputDirectory: folder.file("out"))
        configuration.cache = try ThumbnailCache(directory: folder.file("cache"))
        configuration.fetching = fetcher
        let url = try #require(URL(string: base + file))
        return try PipelineRun.widths(widths.map { (out: "\($0)-\(file)", width: $0) }, of: .url(url),
                                      sourceText: url.absoluteString, configuration: configuration)
    }

    static func png() throws -> Data { try RawImage.quadrants(width: 300, height: 200).encoded(as: .png) }

    @Test("Rows naming one URL share one request; a 404 fails its row; a second run while the body is fresh asks nothing")
    func requestsCounted() throws {
        let folder = try TemporaryDirectory("fetching-double")
        let fetcher = CountingFetcher(bodies: ["a.png": try Self.png()])
        let first = try Self.run("a.png", widths: [64, 128], in: folder, fetcher: fetcher)
        #expect(first.map(\.status) == [.written, .written], "\(first)")
        let gone = try Self.run("gone.png", widths: [64], in: folder, fetcher: fetcher)
        #expect(gone.map(\.status) == [.failed], "\(gone)")
        #expect(gone.first?.error?.code == .httpError)
        #expect(gone.first?.http?.status == 404)
        #expect(fetcher.requests.map(\.url) == [Self.base + "a.png", Self.base + "gone.png"])

        let again = CountingFetcher(bodies: ["a.png": try Self.png()])
        let second = try Self.run("a.png", widths: [64, 128], in: folder, fetcher: again)
        #expect(second.map(\.status) == [.unchanged, .unchanged], "\(second)")
        #expect(again.requests.isEmpty)
    }

    @Test("A body the cache's full file system refuses is got once more outside the cache, and the row is written")
    func fullCacheFileSystem() throws {
        let folder = try TemporaryDirectory("fetching-double-full")
        let cacheFolder = folder.file("cache").path
        let fetcher = CountingFetcher(bodies: ["a.png": try Self.png()], fullUnder: cacheFolder)
        let results = try Self.run("a.png", widths: [64], in: folder, fetcher: fetcher)
        #expect(results.map(\.status) == [.written], "\(results)")
        #expect(results.first?.width == 64)
        let requests = fetcher.requests
        #expect(requests.count == 2)
        #expect(requests.first?.folder.hasPrefix(cacheFolder) == true)
        #expect(requests.last.map { !$0.folder.hasPrefix(cacheFolder) } == true, "\(requests)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("out").path) == ["64-a.png"])
    }
}
