import Foundation
import Testing

/// `http(s)` sources against a real, misbehaving server on 127.0.0.1 (`fault_server.py`): every
/// fault ends in its documented row status and error code, with the expected number of
/// attempts, while the other rows are written and nothing partial is left.
@Suite("End to end: HTTP sources")
struct HTTPSourceTests {
    /// A workspace whose fixtures the server serves.
    static func serve() throws -> (Workspace, FaultServer) {
        let space = try Workspace("http")
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        try space.fixture(.quadrants(width: 60, height: 60), "p.png")
        let whole = try RawImage.quadrants(width: 400, height: 300).encoded(as: .jpeg)
        _ = try space.folder.write(FixtureBytes.truncated(whole), to: "half.jpg")
        return (space, try FaultServer(root: space.folder.url))
    }

    /// Runs `rows` (src, out) with `--allow-private-network` and fast retries and timeouts.
    static func run(_ space: Workspace, _ rows: [[String]], _ extra: [String] = []) async throws
        -> Workspace.Run
    {
        try await space.run(
            manifest: CSV.manifest(["src", "out"], rows),
            ["--size", "32", "--allow-private-network", "--retries", "2", "--stall-timeout", "1",
             "--timeout", "10", "--connect-timeout", "2"] + extra)
    }

    @Test("Faults end in their row error codes, good rows are written, nothing partial is left")
    func faults() async throws {
        let (space, server) = try Self.serve()
        let rows: [(String, String?, Int?)] = [  // path, expected error code (nil = written), attempts
            ("/img/q.jpg", nil, 1),
            ("/img/missing.jpg", "http_error", 1),
            ("/status/410", "http_error", 1),
            ("/flaky/2/503/p.png?retry_after=0", nil, 3),
            ("/flaky/1/429/p.png?retry_after=1", nil, 2),
            ("/status/500", "http_error", 3),
            ("/redirect/3/q.jpg", nil, 1),
            ("/loop", "too_many_redirects", 1),
            ("/truncate/q.jpg", "network_error", 3),
            ("/reset/100/q.jpg", "network_error", 3),
            ("/stall/100/q.jpg", "timeout", 1),
            ("/big/300000", "too_large", 1),
            ("/big/300000?chunked=1", "too_large", 1),
            ("/gzip/p.png", nil, 1),
            ("/img/q.jpg?type=text/plain", nil, 1),
            ("/big/2000", "unsupported_format", 1),
            ("/img/half.jpg", "decode_failed", 1),  // served whole, but the JPEG itself is cut
        ]
        let manifest = rows.enumerated().map { [server.url($0.element.0), "r\($0.offset).png"] }
        let run = try await Self.run(space, manifest, ["--max-bytes", "200000"])
        #expect(run.status == 1, "\(run.result.stderr)")
        for (index, (path, code, attempts)) in rows.enumerated() {
            let record = try #require(run.report?.row(index + 2), "\(path)")
            #expect(record.error?.code == code, "\(path): \(String(describing: record.error))")
            #expect(record.status == (code == nil ? "written" : "failed"), "\(path)")
            #expect(record.http?.attempts == attempts, "\(path): \(String(describing: record.http))")
            // Bounded: the slowest fault here (a stall) ends after --stall-timeout 1 s per attempt;
            // a hang would run into --timeout (10 s) at the latest.
            let download = record.ms?["download"] ?? .infinity
            #expect(download < 10_000, "\(path) took \(download) ms")
        }
        #expect(run.report?.row(3)?.http?.status == 404)
        // Exactly the written rows' files exist; no temporary file remains.
        let written = run.report?.rows.filter { $0.status == "written" }.compactMap(\.out).sorted()
        #expect(space.outputFiles == written)
    }

    @Test("Rows naming the same URL share one transfer")
    func sharedTransfer() async throws {
        let (space, server) = try Self.serve()
        let url = server.url("/img/q.jpg")
        let run = try await Self.run(space, [[url, "a.png"], [url, "b.jpg"], [url, "c.webp"]])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(try server.counts()["/img/q.jpg"] == 1)
    }

    @Test("Without --allow-private-network, a loopback host is refused before any request")
    func privateNetworkRefused() async throws {
        let (space, server) = try Self.serve()
        let run = try await space.run(manifest: CSV.manifest(["src"], [[server.url("/img/q.jpg")]]),
                                      ["--size", "32"])
        #expect(run.status == 1)
        #expect(run.report?.row(2)?.error?.code == "forbidden_address")
        #expect(try server.counts().requests.isEmpty)
    }

    @Test("A redirect to a loopback host is refused too", arguments: ["localhost", "[::1]"])
    func redirectRefused(host: String) async throws {
        let (space, server) = try Self.serve()
        // The redirecting URL itself is loopback as well, so only the guard's verdict on the
        // first connection is visible here; unit tests cover the address classes.
        let target = "http://\(host):\(server.port)/img/q.jpg"
        let run = try await space.run(
            manifest: CSV.manifest(["src"], [[server.url("/redirect-to?url=\(target)")]]), ["--size", "32"])
        #expect(run.report?.row(2)?.error?.code == "forbidden_address")
    }

    @Test("A total timeout ends a slow response")
    func totalTimeout() async throws {
        let (space, server) = try Self.serve()
        let run = try await space.run(
            manifest: CSV.manifest(["src"], [[server.url("/delay/5000/q.jpg")]]),
            ["--size", "32", "--allow-private-network", "--timeout", "1"])
        #expect(run.report?.row(2)?.error?.code == "timeout")
    }

    @Test("SIGINT aborts downloads in flight: the run ends promptly with 130 and a report")
    func interruptDuringDownloads() async throws {
        let (space, server) = try Self.serve()
        // Nothing arrives for 90 s: the run cannot end on its own while the test waits.
        let rows = (0..<6).map { [server.url("/delay/90000/q.jpg?n=\($0)"), "r\($0).png"] }
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], rows), to: "m.csv")
        let runner = try CLIRunner([manifest.path, "--out", space.out.path, "--report",
                                    space.reportURL.path, "--allow-private-network", "--timeout", "120",
                                    // No stall timeout may end the run first.
                                    "--stall-timeout", "120"])
        try runner.start()
        // Watched off the concurrency pool (see OffPool), so that a late wake-up cannot miss it;
        // the interrupt goes in once the server has seen a request (or after 60 s at most: a
        // debug build on a loaded CI box has taken tens of seconds to get there).
        try await OffPool.run {
            let deadline = ContinuousClock.now + .seconds(60)
            while runner.isRunning, ContinuousClock.now < deadline, (try? server.counts().total) ?? 0 < 1 {
                usleep(50_000)
            }
            usleep(300_000)
        }
        let seen = (try? server.counts().total) ?? -1
        try #require(runner.isRunning, "the run ended before it could be interrupted: \(seen) requests seen; \(runner.stderrText)")
        runner.send(SIGINT)
        // Bounded: the transfers would take 90 s; aborted, the run ends in well under that.
        let result = await runner.wait(timeout: .seconds(45))
        #expect(result.status == 130, "\(result.stderr)")
        let report = try Report.read(space.reportURL)
        #expect(report.summary.rows == 6 && report.summary.cancelled == 6)
        #expect(space.outputFiles.isEmpty)
    }
}
