import Foundation
import Testing
@testable import Thumbgen

/// Shards and the remote cache together, as a fleet uses them: four shard processes over one
/// manifest of URL sources share one nginx WebDAV remote; four fresh machines (empty local
/// caches, empty `--out`) then render nothing and fetch no source.
@Suite("Sharding over a remote cache")
struct ShardRemoteTests {
    @Test("Four shards against nginx write the single run's tree and report; four fresh machines then only GET the cache")
    func fleet() async throws {
        let nginx = try await NginxServer.start()
        let space = try Workspace("shard-remote")
        let server = try FaultServer(root: space.folder.url)
        // Fifty generated sources at eight sizes (400 rows), served over HTTP: a fetch shows
        // in the source server's counts, and a URL record is what a fresh machine needs.
        let local = try ShardHarness.manifest(in: space, sources: 50, sizes: [8, 12, 16, 20, 24, 28, 32, 40])
        let rows = local.split(separator: "\n").dropFirst().map { line -> [String] in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return [server.url("/img/" + cells[0])] + cells.dropFirst() + ["3600"]
        }
        let manifest = try space.folder.write(CSV.manifest(["src", "size", "out", "max_age"], rows), to: "manifest.csv")
        #expect(rows.count == 400)

        let single = try await CLIRunner.run([manifest.path, "--out", space.out.path, "--report", space.reportURL.path,
                                              "--allow-private-network"],
                                             cacheDirectory: space.cache, timeout: .seconds(300))
        #expect(single.status == 0, "\(single.stderr)")
        let expected = try CacheFiles.tree(space.out)
        #expect(expected.count == 400)

        /// Four shard processes, caches of their own (`cache-K`), into `out`; their reports.
        func shards(into out: URL, tag: String) async throws -> [URL] {
            let reports = (0..<4).map { space.folder.file("\(tag)-\($0).json") }
            let runs = try await ShardHarness.runAll(4, in: space) { k in
                [manifest.path, "--out", out.path, "--report", reports[k].path, "--shard", "\(k)/4",
                 "--allow-private-network", "--remote-cache", nginx.cacheURL, "--remote-cache-timeout", "15"]
            }
            for (k, run) in runs.enumerated() {
                #expect(run.status == 0, "shard \(k): \(run.stderr)")
                #expect(!run.stderr.contains("warning:"), "shard \(k): \(run.stderr)")
            }
            return reports
        }
        func merged(_ reports: [URL], tag: String) async throws -> URL {
            let merged = space.folder.file("\(tag)-merged.json")
            let merge = try await CLIRunner.run(["report", "merge"] + reports.map(\.path) + ["-o", merged.path])
            #expect(merge.status == 0, "\(merge.stderr)")
            return merged
        }

        // The first fleet renders and fills the remote.
        let firstOut = space.folder.file("out-first")
        let first = try await merged(try await shards(into: firstOut, tag: "first"), tag: "first")
        #expect(try CacheFiles.tree(firstOut) == expected, "the shards' tree differs from the single run's")
        #expect(try ShardHarness.rows(first).map { $0["row"] as? Int } == ShardHarness.rows(space.reportURL).map { $0["row"] as? Int })
        // Counts, not transfer sizes: bytes on the wire depend on how the server chose to send
        // them (4 processes' transfers against one's), as timings do.
        func counts(_ url: URL) throws -> NSDictionary {
            let summary = try #require(try ShardHarness.summary(url).mutableCopy() as? NSMutableDictionary)
            summary["bytes"] = nil
            return summary
        }
        let shardsSummary = try counts(first)
        let singleSummary = try counts(space.reportURL)
        #expect(shardsSummary == singleSummary, "\(shardsSummary) against \(singleSummary)")
        #expect(nginx.requests().contains { $0.method == "PUT" })

        // Fresh machines: no local cache, an empty --out, the source server's counts and
        // nginx's log cleared.
        for k in 0..<4 { try? FileManager.default.removeItem(at: space.folder.file("cache-\(k)")) }
        try server.resetCounts()
        try nginx.clearLog()
        let freshOut = space.folder.file("out-fresh")
        let fresh = try await merged(try await shards(into: freshOut, tag: "fresh"), tag: "fresh")
        #expect(try CacheFiles.tree(freshOut) == expected)
        let report = try Report.read(fresh)
        #expect(report.rows.count == 400)
        #expect(report.rows.allSatisfy { $0.status == "written" && $0.ms?["decode"] == nil && $0.ms?["render"] == nil },
                "a fresh machine rendered")
        #expect(try server.counts().total == 0, "a fresh machine fetched a source")
        let methods = Set(nginx.requests().map(\.method))
        #expect(!methods.isEmpty && methods.isSubset(of: ["GET", "HEAD"]), "\(methods)")
    }
}
