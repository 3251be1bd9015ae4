import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// A local source rewritten between its hashing and its decoding never has its new pixels
/// cached under its old digest. Run in process, with the decode in this process and in worker
/// processes (the command line's default): the pipeline hashes through a double of its
/// `SourceHashing` capability that rewrites the file right after the hash, so the window is
/// hit every time, with no pause and no polling.
@Suite("Cache: a source rewritten while it is read")
struct SourceChangedTests {
    /// Hashes with the cache's own `FileIndex`, counts the hashes, and after the first one
    /// writes `rewrite` over the file it hashed.
    final class RewritingHasher: SourceHashing {
        let files: FileIndex
        let rewrite: Data
        private let count = Mutex(0)

        init(files: FileIndex, rewrite: Data) {
            self.files = files
            self.rewrite = rewrite
        }

        /// Hashes done so far.
        var hashes: Int { count.withLock { $0 } }

        func digest(of file: String, cancellation: Cancellation?) -> (digest: String, stamp: FileIndex.Stamp)? {
            let found = files.digest(of: file, cancellation: cancellation)
            let first = count.withLock { count -> Bool in
                count += 1
                return count == 1
            }
            if first { try? rewrite.write(to: URL(fileURLWithPath: file)) }
            return found
        }
    }

    /// Runs one row, `photo.png` to `out.png`, through a pipeline over the cache at `cache`,
    /// hashing with `hashing` (nil: the cache's own); its result.
    static func run(_ folder: TemporaryDirectory, cache: ThumbnailCache, isolation: WorkerIsolation?,
                    hashing: (any SourceHashing)?) throws -> RowResult {
        var configuration = PipelineConfiguration(outputDirectory: folder.file("out"))
        configuration.cache = cache
        configuration.isolation = isolation
        configuration.sourceHashing = hashing
        let collector = ResultCollector()
        let pipeline = try Pipeline(configuration: configuration, onResult: collector.add)
        let source = Thumbgen.SourceLocation.file(folder.file("photo.png").path)
        pipeline.submit(ThumbnailRequest(row: 2, id: "2", sourceText: "photo.png", source: source,
                                         outTemplate: "out.png", spec: ThumbnailSpec()))
        pipeline.waitUntilFinished()
        return try #require(collector.all.first)
    }

    @Test("A file rewritten after hashing fails its row, and the old content later gets its own pixels",
          arguments: ["workers", "none"])
    func rewrittenAfterHashing(isolation mode: String) throws {
        let isolation = mode == "workers" ? WorkerIsolation(executable: try #require(TestPaths.thumbgen).path) : nil
        let folder = try TemporaryDirectory("source-changed")
        let original = try RawImage.quadrants(width: 64, height: 48).encoded(as: .png)
        let rewritten = try RawImage.quadrants(width: 64, height: 48, [.blue, .blue, .blue, .blue]).encoded(as: .png)
        let source = try folder.write(original, to: "photo.png")
        // Last changed a minute ago, so that the rewrite's stamp differs whatever the clock.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)],
                                              ofItemAtPath: source.path)
        let cache = try ThumbnailCache(directory: folder.file("cache"))
        let hasher = RewritingHasher(files: cache.files, rewrite: rewritten)

        let result = try Self.run(folder, cache: cache, isolation: isolation, hashing: hasher)
        #expect(hasher.hashes == 1)
        #expect(result.status == .failed, "\(result)")
        #expect(result.error?.code == .sourceUnreadable, "\(result)")
        #expect(result.error?.message.contains("changed while it was being read") == true, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/out.png").path))

        // The original bytes again: whatever the cache holds for their digest is their picture.
        try original.write(to: source)
        let again = try Self.run(folder, cache: cache, isolation: isolation, hashing: nil)
        #expect(again.status == .written, "\(again)")
        let pixels = try PixelImage.load(folder.file("out/out.png"))
        #expect(pixels.pixel(4, 4, is: .red), "\(pixels.pixel(4, 4))")
    }
}
