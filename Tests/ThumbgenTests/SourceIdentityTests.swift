import Foundation
import Testing
@testable import Thumbgen

/// A URL source's identity in the cache (`--ignore-query`, the `source_key` column): presigned
/// URLs whose signature changes every run are fetched once and revalidated after, against the
/// test server on 127.0.0.1, which counts requests; `explain` names the identity and what was
/// dropped; the default keeps every URL whole.
@Suite("Sources: identity in the cache (--ignore-query, source_key)")
struct SourceIdentityTests {
    static func serve(_ name: String) throws -> (Workspace, FaultServer) {
        let space = try Workspace(name)
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        return (space, try FaultServer(root: space.folder.url))
    }

    /// A presigned-style path for row `n`, signed for `run`.
    static func presigned(_ n: Int, run: Int) -> String {
        "/img/q.jpg?n=\(n)&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F\(run)"
            + "&X-Amz-Date=2026010\(run)T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host"
            + "&X-Amz-Signature=\(String(repeating: String(run), count: 64))"
    }

    static func manifest(_ server: FaultServer, run: Int, rows: Int = 50) -> String {
        CSV.manifest(["src", "out"], (0..<rows).map { [server.url(presigned($0, run: run)), "r\($0).png"] })
    }

    @Test("50 presigned URLs whose signature changes between runs: fetched once, then revalidated (304)")
    func presignedRevalidated() async throws {
        let (space, server) = try Self.serve("identity-presigned")
        let args = ["--size", "32", "--allow-private-network", "--ignore-query", "aws"]
        let first = try await space.run(manifest: Self.manifest(server, run: 1), args)
        #expect(first.status == 0, "\(first.result.stderr)")
        let counts1 = try server.counts()
        #expect(counts1.total == 50, "one request per row: \(counts1)")
        #expect(counts1.conditional.isEmpty)
        #expect(first.report?.rows.allSatisfy { $0.http?.status == 200 } == true)
        try server.resetCounts()

        let second = try await space.run(manifest: Self.manifest(server, run: 2), args)
        #expect(second.status == 0, "\(second.result.stderr)")
        let counts2 = try server.counts()
        #expect(counts2.total == 50, "\(counts2)")
        // Each new URL, as signed for this run, was asked with the validators stored for its identity.
        for n in 0..<50 {
            #expect(counts2.conditional[Self.presigned(n, run: 2)] == 1, "row \(n)")
        }
        let rows = try #require(second.report?.rows)
        #expect(rows.count == 50)
        #expect(rows.allSatisfy { $0.cache == "revalidated" && $0.http?.status == 304 }, "\(rows.prefix(2))")
        #expect(rows.allSatisfy { $0.ms?["decode"] == nil }, "nothing is decoded again")
    }

    @Test("The cron recipe's way: thumbgen warm --ignore-query aws over a re-exported presigned manifest revalidates every row")
    func warmRevalidates() async throws {
        let (space, server) = try Self.serve("identity-warm")
        let manifest = try space.folder.write(Self.manifest(server, run: 1, rows: 5), to: "m.csv")
        let args = ["warm", manifest.path, "--size", "32", "--allow-private-network", "--ignore-query", "aws",
                    "--report", space.reportURL.path]
        let first = try await CLIRunner.run(args, cacheDirectory: space.cache)
        #expect(first.status == 0, "\(first.stderr)")
        let firstSummary = try Report.read(space.reportURL).summary
        // Every row serves the same bytes (only `n` differs), so one output key: a row that
        // finds it made already by another is a cache hit, not a render (which rows, timing says).
        let made = (firstSummary.warm?["rendered"] ?? 0) + (firstSummary.cache?["hit"] ?? 0)
        #expect(made == 5 && firstSummary.warm?["failed"] == 0, "\(firstSummary)")
        try server.resetCounts()
        _ = try space.folder.write(Self.manifest(server, run: 2, rows: 5), to: "m.csv")
        let second = try await CLIRunner.run(args, cacheDirectory: space.cache)
        #expect(second.status == 0, "\(second.stderr)")
        let summary = try Report.read(space.reportURL).summary
        #expect(summary.warm?["revalidated"] == 5, "\(summary)")
        #expect(try server.counts().conditional.count == 5)
    }

    @Test("Without --ignore-query a changed signature is a new source: downloaded in full (the default is unchanged)")
    func defaultKeepsTheWholeURL() async throws {
        let (space, server) = try Self.serve("identity-default")
        let args = ["--size", "32", "--allow-private-network"]
        _ = try await space.run(manifest: Self.manifest(server, run: 1, rows: 3), args)
        try server.resetCounts()
        let second = try await space.run(manifest: Self.manifest(server, run: 2, rows: 3), args)
        #expect(second.status == 0, "\(second.result.stderr)")
        let counts = try server.counts()
        #expect(counts.total == 3 && counts.conditional.isEmpty, "\(counts)")
        #expect(second.report?.rows.allSatisfy { $0.http?.status == 200 } == true)
        // Keys stay as they were: the URL index holds each whole URL.
        let urls = CacheFiles(root: space.cache).urls()
        #expect(urls.contains { $0.contains("X-Amz-Signature") }, "\(urls)")
    }

    @Test("A source_key column names the identity outright: a URL on another host revalidates it")
    func sourceKeyColumn() async throws {
        let (space, server) = try Self.serve("identity-column")
        let args = ["--size", "32", "--allow-private-network"]
        let first = try await space.run(
            manifest: CSV.manifest(["src", "source_key", "out"], [[server.url("/img/q.jpg?token=a"), "photos/q", "q.png"]]), args)
        #expect(first.status == 0, "\(first.result.stderr)")
        try server.resetCounts()
        let moved = "http://localhost:\(server.port)/img/q.jpg?token=b"
        let second = try await space.run(
            manifest: CSV.manifest(["src", "source_key", "out"], [[moved, "photos/q", "q.png"]]), args)
        #expect(second.status == 0, "\(second.result.stderr)")
        #expect(try server.counts().conditional["/img/q.jpg?token=b"] == 1)
        #expect(second.report?.row(2)?.cache == "revalidated")
    }

    @Test("explain shows the identity and which parameters --ignore-query dropped (names, never values)")
    func explainShowsIdentity() async throws {
        let (space, server) = try Self.serve("identity-explain")
        let url = server.url(Self.presigned(0, run: 1))
        _ = try space.folder.write(CSV.manifest(["src", "out"], [[url, "a.png"]]), to: "manifest.csv")
        let text = try await CLIRunner.run(
            ["explain", space.folder.file("manifest.csv").path, "2", "--out", space.out.path,
             "--ignore-query", "AWS,n"], cacheDirectory: space.cache)
        #expect(text.status == 0, "\(text.stderr)")
        let identity = "http://127.0.0.1:\(server.port)/img/q.jpg"
        #expect(text.stdout.contains("identity: \(identity) (--ignore-query dropped n, X-Amz-Algorithm, "
                                     + "X-Amz-Credential, X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders, X-Amz-Signature)"),
                "\(text.stdout)")

        struct Explained: Decodable {
            struct Identity: Decodable { var key: String, from: String, dropped: [String] }
            var identity: Identity?
        }
        let json = try await CLIRunner.run(
            ["explain", space.folder.file("manifest.csv").path, "2", "--json", "--out", space.out.path,
             "--ignore-query", "x-amz-signature"], cacheDirectory: space.cache)
        let explained = try JSONDecoder().decode([Explained].self, from: Data(json.stdout.utf8))
        let found = try #require(explained.first?.identity)
        #expect(found.from == "ignore_query" && found.dropped == ["X-Amz-Signature"])
        #expect(!found.key.contains("X-Amz-Signature") && found.key.contains("X-Amz-Date"))
        #expect(try server.counts().total == 0, "explain asks no server")
    }

    @Test("A bad --ignore-query value is refused before any work, naming the flag")
    func badIgnoreQuery() async throws {
        let (space, server) = try Self.serve("identity-bad")
        let run = try await space.run(manifest: Self.manifest(server, run: 1, rows: 1), ["--ignore-query", "a,,b"])
        #expect(run.status == 64 || run.status == 2, "\(run.result.stderr)")
        #expect(run.result.stderr.contains("--ignore-query"), "\(run.result.stderr)")
        #expect(try server.counts().total == 0)
    }

    @Test("RowParser: source_key names a URL's identity (over --ignore-query), changes nothing for a file, and must be one line")
    func rowParser() throws {
        var parser = RowParser(baseDirectory: "/m")
        parser.queryFilter = try QueryFilter(names: ["aws"])
        let signed = "https://b.s3.amazonaws.com/a.jpg?X-Amz-Signature=abc&v=2"
        let byFilter = try parser.parse(ManifestRecord(line: 2, values: [.src: signed])).get()
        #expect(byFilter.urlIdentity == "https://b.s3.amazonaws.com/a.jpg?v=2")
        #expect(byFilter.sourceKey == SourceKey(identity: "https://b.s3.amazonaws.com/a.jpg?v=2",
                                                dropped: ["X-Amz-Signature"], fromColumn: false))
        let byColumn = try parser.parse(ManifestRecord(line: 3, values: [.src: signed, .sourceKey: " photos/a "])).get()
        #expect(byColumn.urlIdentity == "photos/a" && byColumn.sourceKey?.fromColumn == true)
        let file = try parser.parse(ManifestRecord(line: 4, values: [.src: "a.jpg", .sourceKey: "photos/a"])).get()
        #expect(file.sourceKey == nil && file.urlIdentity == nil)
        let plain = try RowParser(baseDirectory: "/m").parse(ManifestRecord(line: 5, values: [.src: signed])).get()
        #expect(plain.sourceKey == nil && plain.urlIdentity == signed, "no flag: the URL is its identity")
        guard case .failure(let error) = parser.parse(ManifestRecord(line: 6, values: [.src: signed, .sourceKey: "a\nb"])) else {
            Issue.record("a two-line source_key was accepted")
            return
        }
        #expect(error.column == "source_key")
        #expect(ManifestColumn(header: "Source-Key") == .sourceKey && ManifestColumn.sourceKey.ordinal == 30)
        let s3 = try parser.parse(ManifestRecord(line: 7, values: [.src: "s3://bucket/photos/a.jpg"])).get()
        #expect(s3.urlIdentity == "s3://bucket/photos/a.jpg")
        #expect(throws: RowError.self) { try parser.parse(ManifestRecord(line: 8, values: [.src: "s3://bucket"])).get() }
    }

    @Test("QueryFilter: aws covers S3, CloudFront and GCS, case-insensitively; other parameters keep their order and bytes",
          arguments: [
              ("https://h/a.jpg?X-Amz-Signature=s&w=1", "https://h/a.jpg?w=1"),
              ("https://h/a.jpg?w=1&Expires=9&Signature=s&Key-Pair-Id=K&Policy=p&z=%20", "https://h/a.jpg?w=1&z=%20"),
              ("https://h/a.jpg?x-goog-signature=s&X-Goog-Date=d", "https://h/a.jpg"),
              ("https://h/a.jpg?x-amz-date=d#frag", "https://h/a.jpg#frag"),
          ])
    func queryFilter(url: String, identity: String) throws {
        let filter = try QueryFilter(names: ["aws"])
        #expect(filter.identity(of: url)?.identity == identity)
        #expect(filter.identity(of: "https://h/a.jpg?w=1") == nil, "nothing dropped: the URL itself")
        #expect(try QueryFilter(names: ["TOKEN"]).identity(of: "https://h/a?token=1&t=2")?.identity == "https://h/a?t=2")
    }
}
