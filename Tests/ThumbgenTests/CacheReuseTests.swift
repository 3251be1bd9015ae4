import Foundation
import Testing

/// The disk cache with local sources: a second run reuses every output without decoding,
/// rewrites nothing, and refills `--out` from the cache; a changed source or recipe is a
/// miss; a damaged entry is never served but rebuilt.
@Suite("Cache: reuse across runs")
struct CacheReuseTests {
    static func workspace() throws -> Workspace {
        let space = try Workspace("cache")
        try space.fixture(.quadrants(width: 300, height: 200), "a.png")
        try space.fixture(.quadrants(width: 160, height: 240), "b.jpg", as: .jpeg)
        // Local-file stamps are recorded only for files last changed over a second ago.
        for name in ["a.png", "b.jpg"] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)],
                                                  ofItemAtPath: space.folder.file(name).path)
        }
        return space
    }

    static let manifest = CSV.manifest(
        ["src", "out", "size"],
        [["a.png", "a.jpg", "90"], ["a.png", "a-small.webp", "40"], ["b.jpg", "b.png", "64x64"]])

    @Test("The second run is all hits, decodes nothing and rewrites nothing; a cleared --out is refilled byte for byte")
    func reuse() async throws {
        let space = try Self.workspace()
        let first = try await space.run(manifest: Self.manifest)
        #expect(first.status == 0, "\(first.result.stderr)")
        #expect(first.report?.rows.map(\.cache) == ["miss", "miss", "miss"])
        #expect(first.report?.summary.cache == ["hit": 0, "miss": 3, "revalidated": 0])
        let originals = try CacheFiles.tree(space.out)
        let sourceDigest = try #require(first.report?.row(2)?.source_sha256)
        #expect(sourceDigest == first.report?.row(3)?.source_sha256)
        #expect(sourceDigest.count == 64)
        #expect(CacheFiles(root: space.cache).entries("outputs").count == 3)
        let old = Date(timeIntervalSince1970: 978_307_200)
        for name in originals.keys {
            try FileManager.default.setAttributes([.modificationDate: old],
                                                  ofItemAtPath: space.output(name).path)
        }

        let second = try await space.run(manifest: Self.manifest)
        #expect(second.status == 0, "\(second.result.stderr)")
        let report = try #require(second.report)
        #expect(report.rows.map(\.cache) == ["hit", "hit", "hit"])
        #expect(report.rows.map(\.status) == ["unchanged", "unchanged", "unchanged"])
        #expect(report.rows.allSatisfy { $0.ms?["decode"] == nil && $0.ms?["render"] == nil })
        #expect(report.rows.map(\.source_sha256) == first.report?.rows.map(\.source_sha256))
        for name in originals.keys {
            let attributes = try FileManager.default.attributesOfItem(atPath: space.output(name).path)
            #expect(attributes[.modificationDate] as? Date == old, "\(name) was rewritten")
        }

        try FileManager.default.removeItem(at: space.out)
        let third = try await space.run(manifest: Self.manifest)
        #expect(third.status == 0, "\(third.result.stderr)")
        #expect(third.report?.rows.map(\.cache) == ["hit", "hit", "hit"])
        #expect(third.report?.rows.map(\.status) == ["written", "written", "written"])
        #expect(try CacheFiles.tree(space.out) == originals)
    }

    @Test("A changed source, or a changed recipe, is a miss; the rest still hit")
    func misses() async throws {
        let space = try Self.workspace()
        #expect(try await space.run(manifest: Self.manifest).status == 0)
        try space.fixture(.quadrants(width: 200, height: 300), "b.jpg", as: .jpeg)
        let run = try await space.run(manifest: Self.manifest, ["--quality", "60"])
        #expect(run.status == 0, "\(run.result.stderr)")
        // --quality is part of every row's recipe; the third row's source changed as well.
        #expect(run.report?.rows.map(\.cache) == ["miss", "miss", "miss"])
        let again = try await space.run(manifest: Self.manifest, ["--quality", "60"])
        #expect(again.report?.rows.map(\.cache) == ["hit", "hit", "hit"])
        #expect(again.report?.row(4)?.width == 43)  // the new 200×300 b.jpg inside 64×64
    }

    @Test("A damaged output blob or record is never served: it is dropped and rebuilt, same bytes")
    func damagedOutput() async throws {
        let space = try Self.workspace()
        let first = try await space.run(manifest: Self.manifest)
        #expect(first.status == 0, "\(first.result.stderr)")
        let originals = try CacheFiles.tree(space.out)
        let files = CacheFiles(root: space.cache)
        // One flipped bit in the first row's blob; one in the third row's record.
        try CacheFiles.flipByte(of: files.blob(try #require(first.report?.row(2)?.sha256)), at: 100)
        let outputs = files.entries("outputs")
        for record in outputs { try CacheFiles.flipByte(of: record, at: 30) }
        try FileManager.default.removeItem(at: space.out)

        let second = try await space.run(manifest: Self.manifest)
        #expect(second.status == 0, "\(second.result.stderr)")
        #expect(second.report?.rows.map(\.cache) == ["miss", "miss", "miss"])
        #expect(try CacheFiles.tree(space.out) == originals)
        // Rebuilt entries serve again, and the blob is whole once more.
        try FileManager.default.removeItem(at: space.out)
        let third = try await space.run(manifest: Self.manifest)
        #expect(third.report?.rows.map(\.cache) == ["hit", "hit", "hit"])
        #expect(try CacheFiles.tree(space.out) == originals)
    }

    @Test("Only the damaged blob is rebuilt when the records are sound")
    func damagedBlobOnly() async throws {
        let space = try Self.workspace()
        let first = try await space.run(manifest: Self.manifest)
        let originals = try CacheFiles.tree(space.out)
        let blob = CacheFiles(root: space.cache).blob(try #require(first.report?.row(4)?.sha256))
        try CacheFiles.flipByte(of: blob)
        try FileManager.default.removeItem(at: space.out)
        let second = try await space.run(manifest: Self.manifest)
        #expect(second.status == 0, "\(second.result.stderr)")
        #expect(second.report?.rows.map(\.cache) == ["hit", "hit", "miss"])
        #expect(try CacheFiles.tree(space.out) == originals)
    }

    @Test("--no-cache neither reads nor creates the cache")
    func noCache() async throws {
        let space = try Self.workspace()
        let run = try await space.run(manifest: Self.manifest, ["--no-cache"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.rows.allSatisfy { $0.cache == nil && $0.source_sha256 == nil } == true)
        #expect(!FileManager.default.fileExists(atPath: space.cache.path))
    }

    @Test("A cache directory that cannot be made exits 3 and writes nothing")
    func unwritableCache() async throws {
        let space = try Self.workspace()
        let blocker = try space.folder.write("not a folder", to: "blocker")
        let run = try await space.run(
            manifest: Self.manifest, ["--cache-dir", blocker.appendingPathComponent("cache").path])
        #expect(run.status == 3, "\(run.result.stderr)")
        #expect(run.result.stderr.contains("cache"))
        #expect(space.outputFiles.isEmpty)
    }
}
