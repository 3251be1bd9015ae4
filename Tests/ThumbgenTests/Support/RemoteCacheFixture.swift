import Foundation
import Testing
@testable import Thumbgen

/// One "machine" of the remote cache tests: a workspace whose manifest names two rows of a
/// JPEG served by the fault server (so that a source fetch shows in its counts) and one row of
/// a local PNG, run against a remote cache. `forgetLocal()` makes it a fresh machine: no local
/// cache, no `--out`.
struct RemoteCacheFixture {
    let space: Workspace
    let server: FaultServer

    /// The manifest's outputs, in row order (rows 2, 3 and 4).
    static let outputs = ["q48.jpg", "q24.webp", "p32.png"]

    init(_ label: String) throws {
        space = try Workspace(label)
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        try space.fixture(.quadrants(width: 60, height: 90), "p.png")
        server = try FaultServer(root: space.folder.url)
    }

    var manifest: String {
        CSV.manifest(["src", "size", "out", "max_age"], [
            [server.url("/img/q.jpg"), "48", Self.outputs[0], "3600"],
            [server.url("/img/q.jpg"), "24", Self.outputs[1], "3600"],
            ["p.png", "32", Self.outputs[2], "0"],
        ])
    }

    /// `thumbgen manifest.csv --out out --remote-cache REMOTE ARGUMENTS`, with a remote
    /// timeout of `timeout` seconds: short where the remote is meant to fail, long enough
    /// elsewhere that a loaded machine's slow answer is not taken for a failure.
    func run(remote: String, _ arguments: [String] = [], timeout: Int = 15, environment: [String: String] = [:],
             sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Workspace.Run {
        try await space.run(manifest: manifest,
                            ["--allow-private-network", "--remote-cache", remote,
                             "--remote-cache-timeout", String(timeout)] + arguments,
                            environment: environment, timeout: .seconds(90), sourceLocation: sourceLocation)
    }

    /// Empties the local cache and `--out`, and the source server's counts.
    func forgetLocal() throws {
        for folder in [space.cache, space.out] where FileManager.default.fileExists(atPath: folder.path) {
            try FileManager.default.removeItem(at: folder)
        }
        try server.resetCounts()
    }

    /// The bytes of each output, in row order (nil where missing).
    func outputBytes() -> [Data?] {
        Self.outputs.map { try? Data(contentsOf: space.output($0)) }
    }

    /// Standard error's warning lines.
    static func warnings(_ run: Workspace.Run) -> [Substring] {
        run.result.stderr.split(separator: "\n").filter { $0.contains("warning:") }
    }

    /// `cache stats --json`'s runs, with their remote counts.
    func remoteCountsOfRuns() async throws -> [RemoteCountsJSON?] {
        struct Stats: Decodable {
            struct Run: Decodable { var remote: RemoteCountsJSON? }
            var runs: [Run]
        }
        let result = try await CLIRunner.run(["cache", "stats", "--json"], cacheDirectory: space.cache)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Stats.self, from: Data(result.stdout.utf8)).runs.map(\.remote)
    }
}

/// A run's remote counts as `cache stats --json` names them.
struct RemoteCountsJSON: Decodable, Equatable {
    var hit: Int, miss: Int, rejected: Int, upload: Int, dropped: Int, failed: Int
}
