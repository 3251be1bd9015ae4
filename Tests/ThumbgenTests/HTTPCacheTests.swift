import Foundation
import Testing
@testable import Thumbgen

/// The disk cache with `http` sources, against the test server on 127.0.0.1: freshness by the
/// row's `max_age` and the response's headers, revalidation by `304`, `no-store`, damaged
/// source blobs, `--offline`, and `thumbgen warm`.
@Suite("Cache: HTTP sources")
struct HTTPCacheTests {
    static func serve() throws -> (Workspace, FaultServer) {
        let space = try Workspace("http-cache")
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        try space.fixture(.quadrants(width: 60, height: 90), "p.png")
        return (space, try FaultServer(root: space.folder.url))
    }

    /// Runs rows of (server path, max_age) with `--size 32`.
    static func run(_ space: Workspace, _ server: FaultServer, _ rows: [(String, Int)],
                    _ extra: [String] = [], command: [String] = []) async throws -> Workspace.Run {
        let manifest = CSV.manifest(
            ["src", "max_age", "out"],
            rows.enumerated().map { [server.url($0.element.0), String($0.element.1), "r\($0.offset).png"] })
        return try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network"] + extra)
    }

    @Test("max_age and the response's headers decide which rows ask the server again",
          arguments: [
              // path, max_age, requests on the second run, conditional ones, cache outcome
              ("/img/q.jpg?no_cache=1", 3600, 0, 0, "hit"),          // max_age > 0 overrides
              ("/img/q.jpg?no_store=1", 3600, 0, 0, "hit"),          // ... even no-store
              ("/img/q.jpg?max_age=3600", 0, 0, 0, "hit"),           // Cache-Control: max-age
              ("/img/q.jpg?expires=3600", 0, 0, 0, "hit"),           // Expires
              ("/img/q.jpg?max_age=0&expires=3600", 0, 1, 1, "revalidated"),  // max-age wins
              ("/img/q.jpg", 0, 1, 1, "revalidated"),                // no headers: revalidate
              ("/img/q.jpg?no_cache=1", 0, 1, 1, "revalidated"),     // no-cache: revalidate
              ("/img/q.jpg?max_age=3600", -1, 1, 0, "hit"),          // < 0: never stored, GET
              ("/img/q.jpg?no_store=1&max_age=3600", 0, 1, 0, "hit"),  // no-store: GET again
          ])
    func freshness(path: String, maxAge: Int, requests: Int, conditional: Int, outcome: String) async throws {
        let (space, server) = try Self.serve()
        let first = try await Self.run(space, server, [(path, maxAge)])
        #expect(first.status == 0, "\(first.result.stderr)")
        #expect(first.report?.row(2)?.cache == "miss")
        try server.resetCounts()

        let second = try await Self.run(space, server, [(path, maxAge)])
        #expect(second.status == 0, "\(second.result.stderr)")
        let counts = try server.counts()
        #expect(counts[path] == requests, "requests for \(path) with max_age \(maxAge)")
        #expect(counts.conditional[path, default: 0] == conditional)
        let row = try #require(second.report?.row(2))
        // The output itself always comes from the cache: its source's bytes did not change.
        #expect(row.cache == outcome)
        #expect(row.ms?["decode"] == nil)
        #expect(row.source_sha256 == first.report?.row(2)?.source_sha256)
        let stored = !CacheFiles(root: space.cache).urls().isEmpty
        #expect(stored == (maxAge > 0 || (maxAge == 0 && !path.contains("no_store"))))
    }

    @Test("A 304 reuses the stored bytes; a changed ETag fetches and renders the new image")
    func revalidation() async throws {
        let (space, server) = try Self.serve()
        let first = try await Self.run(space, server, [("/img/q.jpg", 0)])
        #expect(first.report?.row(2)?.cache == "miss")
        try server.resetCounts()

        let second = try await Self.run(space, server, [("/img/q.jpg", 0)])
        #expect(second.report?.row(2)?.cache == "revalidated")
        #expect(second.report?.row(2)?.http?.status == 304)
        #expect(second.report?.row(2)?.status == "unchanged")
        #expect(try server.counts().conditional["/img/q.jpg"] == 1)

        // New content: the server's ETag (a content hash) changes, so If-None-Match misses.
        try space.fixture(.quadrants(width: 80, height: 120), "q.jpg", as: .jpeg)
        let third = try await Self.run(space, server, [("/img/q.jpg", 0)])
        let row = try #require(third.report?.row(2))
        #expect(row.cache == "miss")
        #expect(row.http?.status == 200)
        #expect(row.status == "written")
        #expect(row.width == 32 && row.height == 48, "\(row)")  // --size 32 is a width; now portrait
        #expect(row.source_sha256 != first.report?.row(2)?.source_sha256)
    }

    @Test("A damaged stored source is never decoded: it is dropped and fetched again")
    func damagedSource() async throws {
        let (space, server) = try Self.serve()
        let first = try await Self.run(space, server, [("/img/q.jpg?max_age=3600", 0)])
        let digest = try #require(first.report?.row(2)?.source_sha256)
        try CacheFiles.flipByte(of: CacheFiles(root: space.cache).blob(digest), at: 200)
        try server.resetCounts()
        // A new size needs the source's pixels; the stored copy is fresh but damaged.
        let second = try await space.run(
            manifest: CSV.manifest(["src", "out"], [[server.url("/img/q.jpg?max_age=3600"), "big.png"]]),
            ["--size", "48", "--allow-private-network"])
        #expect(second.status == 0, "\(second.result.stderr)")
        let row = try #require(second.report?.row(2))
        #expect(row.cache == "miss" && row.width == 48)
        #expect(row.source_sha256 == digest)
        #expect(try server.counts()["/img/q.jpg?max_age=3600"] == 1)
        let blob = try Data(contentsOf: CacheFiles(root: space.cache).blob(digest))
        #expect(ContentDigest.of(blob) == digest)
    }

    @Test("After a 304, a stored source is read only if an output needs its pixels; damaged, it is fetched again")
    func revalidatedDamagedSource() async throws {
        let (space, server) = try Self.serve()
        let path = "/img/q.jpg"  // no freshness headers: revalidated on every run
        let first = try await Self.run(space, server, [(path, 0)])
        let digest = try #require(first.report?.row(2)?.source_sha256)
        let blob = CacheFiles(root: space.cache).blob(digest)
        try CacheFiles.flipByte(of: blob, at: 200)
        let damaged = try Data(contentsOf: blob)

        // Every output cached: the 304 serves them, and the body is not read (still damaged).
        try server.resetCounts()
        let second = try await Self.run(space, server, [(path, 0)])
        #expect(second.report?.row(2)?.cache == "revalidated", "\(second.result.stderr)")
        #expect(try Data(contentsOf: blob) == damaged)
        #expect(try server.counts().conditional[path, default: 0] == 1)

        // A new size needs the pixels: the damaged body is dropped and downloaded again.
        try server.resetCounts()
        let third = try await space.run(
            manifest: CSV.manifest(["src", "max_age", "out"], [[server.url(path), "0", "big.png"]]),
            ["--size", "48", "--allow-private-network"])
        #expect(third.status == 0, "\(third.result.stderr)")
        let row = try #require(third.report?.row(2))
        #expect(row.cache == "miss" && row.width == 48 && row.source_sha256 == digest)
        let counts = try server.counts()
        #expect(counts[path] == 2 && counts.conditional[path, default: 0] == 1, "\(counts)")
        #expect(ContentDigest.of(try Data(contentsOf: blob)) == digest)
    }

    @Test("--offline serves what is cached without a connection and fails the rest with not_cached")
    func offline() async throws {
        let (space, server) = try Self.serve()
        #expect(try await Self.run(space, server, [("/img/q.jpg", 0)]).status == 0)
        try server.resetCounts()
        let run = try await Self.run(space, server, [("/img/q.jpg", 0), ("/img/p.png", 0)], ["--offline"])
        #expect(run.status == 1)
        #expect(run.report?.row(2)?.cache == "hit")
        #expect(run.report?.row(3)?.error?.code == "not_cached")
        #expect(run.report?.row(3)?.error?.message.contains("/img/p.png") == true)
        #expect(try server.counts().total == 0)
        #expect(try server.counts().connections == 0)
    }

    @Test("thumbgen warm fills the cache without writing outputs, then says what it did")
    func warm() async throws {
        let (space, server) = try Self.serve()
        let manifest = try space.folder.write(CSV.manifest(
            ["src", "max_age", "size", "out"],
            [[server.url("/img/q.jpg?max_age=3600"), "0", "32", "a.png"],
             [server.url("/img/p.png"), "0", "32", "b.png"],
             [server.url("/img/p.png"), "0", "16", "c.png"],
             [server.url("/status/404"), "0", "32", "d.png"]]), to: "warm.csv")
        func warm() async throws -> Report {
            let result = try await CLIRunner.run(
                ["warm", manifest.path, "--allow-private-network", "--report", space.reportURL.path],
                cacheDirectory: space.cache)
            #expect(result.status == 1, "\(result.stderr)")
            return try Report.read(space.reportURL)
        }
        let first = try await warm()
        #expect(first.rows.map(\.warm) == ["rendered", "rendered", "rendered", "failed"])
        #expect(first.rows.map(\.status) == ["written", "written", "written", "failed"])
        #expect(first.rows.allSatisfy { $0.out == nil })
        #expect(!FileManager.default.fileExists(atPath: space.out.path))
        #expect(first.summary.warm == ["fresh": 0, "revalidated": 0, "fetched": 0, "rendered": 3, "failed": 1])

        let second = try await warm()
        #expect(second.rows.map(\.warm) == ["fresh", "revalidated", "revalidated", "failed"])

        // New bytes under the same URL: the server's ETag follows the content, so the
        // revalidation answers 200 and the outputs are made again.
        try space.fixture(.quadrants(width: 90, height: 60), "p.png")
        let third = try await warm()
        #expect(third.rows.map(\.warm) == ["fresh", "rendered", "rendered", "failed"])

        // The render run that follows opens no connection for the fresh row and copies outputs.
        try server.resetCounts()
        let render = try await space.run(manifest: try String(contentsOf: manifest, encoding: .utf8),
                                         ["--allow-private-network"])
        #expect(render.report?.rows.map(\.cache) == ["hit", "revalidated", "revalidated", nil])
        #expect(try server.counts()["/img/q.jpg?max_age=3600"] == 0)
        #expect(space.outputFiles == ["a.png", "b.png", "c.png"])
    }
}

/// Rows naming one URL with different `max_age` policies each keep their own policy: they
/// share no download, so a never-cached row neither reads nor fills the cache for another.
@Suite("Cache: one URL, several max_age policies")
struct SharedURLPolicyTests {
    @Test("A max_age=-1 row next to a max_age=3600 row stores nothing and reads nothing from the cache")
    func policiesStayApart() async throws {
        let (space, server) = try HTTPCacheTests.serve()
        let path = "/img/q.jpg"
        func run(_ rows: [(Int, String)]) async throws -> Workspace.Run {
            let manifest = CSV.manifest(["src", "max_age", "size", "out"],
                                        rows.enumerated().map { [server.url(path), String($0.element.0), $0.element.1, "r\($0.offset).png"] })
            return try await space.run(manifest: manifest, ["--allow-private-network"])
        }
        // The never-cached row comes first: the shared download used to take its policy, so
        // the 3600 row's source was never stored and the next run fetched it again.
        let first = try await run([(-1, "32"), (3600, "40")])
        #expect(first.status == 0, "\(first.result.stderr)")
        try server.resetCounts()
        let again = try await run([(3600, "48")])
        #expect(again.status == 0, "\(again.result.stderr)")
        #expect(try server.counts()[path] == 0, "the 3600 row's source was not stored")

        // Now the source is stored: a -1 row next to a 3600 row must still fetch its own copy.
        try server.resetCounts()
        let mixed = try await run([(3600, "56"), (-1, "64")])
        #expect(mixed.status == 0, "\(mixed.result.stderr)")
        #expect(try server.counts()[path] == 1, "the max_age=-1 row was served from the cache")
    }
}
