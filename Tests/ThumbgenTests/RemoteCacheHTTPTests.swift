import Foundation
import Testing
@testable import Thumbgen

/// `--remote-cache` against nginx with its WebDAV module on 127.0.0.1: what one machine
/// renders, another with an empty cache copies without rendering or fetching; a poisoned blob
/// or record is a miss that is rendered and uploaded again; a remote that is down, stalls or
/// answers 500 costs one warning and nothing else; read-only mode writes nothing.
@Suite("Remote cache: HTTP (nginx WebDAV)")
struct RemoteCacheHTTPTests {
    @Test("A fresh machine renders nothing and fetches no source: nginx sees only GET and HEAD")
    func freshMachine() async throws {
        let nginx = try await NginxServer.start()
        let machine = try RemoteCacheFixture("remote-fresh")
        let first = try await machine.run(remote: nginx.cacheURL)
        #expect(first.status == 0, "\(first.result.stderr)")
        #expect(first.report?.rows.map(\.cache) == ["miss", "miss", "miss"])
        // Three outputs (blob, record) and the fetched source (blob, URL record); the local
        // file's bytes stay on its machine.
        let puts = nginx.requests().filter { $0.method == "PUT" }
        #expect(puts.count == 8, "\(puts)")
        #expect(puts.allSatisfy { (200...299).contains($0.status) })
        #expect(first.result.stderr.contains("8 uploads"), "\(first.result.stderr)")
        let made = machine.outputBytes()
        let firstCounts = try #require(try await machine.remoteCountsOfRuns().last ?? nil)
        #expect(firstCounts.upload == 8 && firstCounts.hit == 0 && firstCounts.miss >= 4, "\(firstCounts)")

        try machine.forgetLocal()
        try nginx.clearLog()
        let second = try await machine.run(remote: nginx.cacheURL)
        #expect(second.status == 0, "\(second.result.stderr)")
        let rows = try #require(second.report?.rows)
        #expect(rows.map(\.status) == ["written", "written", "written"])
        #expect(rows.allSatisfy { $0.ms?["decode"] == nil && $0.ms?["render"] == nil }, "\(rows)")
        #expect(machine.outputBytes() == made)
        #expect(try machine.server.counts().total == 0, "no source is fetched")
        let methods = Set(nginx.requests().map(\.method))
        #expect(!methods.isEmpty && methods.isSubset(of: ["GET", "HEAD"]), "\(nginx.requests())")
        #expect(RemoteCacheFixture.warnings(second).isEmpty, "\(second.result.stderr)")

        let runs = try await machine.remoteCountsOfRuns()
        let counts = try #require(runs.last ?? nil)
        #expect(counts.hit >= 3 && counts.miss == 0 && counts.upload == 0 && counts.failed == 0, "\(counts)")
    }

    @Test("A flipped blob and a record moved under another key are misses: rendered, uploaded again, correct")
    func poisoned() async throws {
        let nginx = try await NginxServer.start()
        let machine = try RemoteCacheFixture("remote-poison")
        let first = try await machine.run(remote: nginx.cacheURL)
        #expect(first.status == 0, "\(first.result.stderr)")
        let made = machine.outputBytes()
        let rows = try #require(first.report?.rows)
        let store = nginx.root.appendingPathComponent("cache")

        // Row 2's output blob gets a flipped byte; row 4's record is replaced by row 3's.
        let blobSHA = try #require(rows[0].sha256)
        let blob = store.appendingPathComponent(RemoteStore.path(.blobs, blobSHA))
        try CacheFiles.flipByte(of: blob)
        let records = nginx.storedFiles.filter { $0.hasPrefix("v1/outputs/") }
        #expect(records.count == 3)
        let recordOf: [String: String] = Dictionary(uniqueKeysWithValues: try records.map { path in
            let text = try String(contentsOf: store.appendingPathComponent(path), encoding: .utf8)
            let sha = text.split(separator: "\n").first { $0.hasPrefix("sha256\t") }?.dropFirst(7) ?? ""
            return (String(sha), path)
        })
        let webpRecord = try #require(recordOf[rows[1].sha256 ?? ""])
        let pngRecord = try #require(recordOf[rows[2].sha256 ?? ""])
        try FileManager.default.removeItem(at: store.appendingPathComponent(pngRecord))
        try FileManager.default.copyItem(at: store.appendingPathComponent(webpRecord),
                                         to: store.appendingPathComponent(pngRecord))

        try machine.forgetLocal()
        try nginx.clearLog()
        let second = try await machine.run(remote: nginx.cacheURL)
        #expect(second.status == 0, "\(second.result.stderr)")
        #expect(machine.outputBytes() == made, "every output is the right one")
        let again = try #require(second.report?.rows)
        #expect(again[0].ms?["render"] != nil && again[2].ms?["render"] != nil, "the poisoned rows are rendered")
        #expect(again[1].ms?["render"] == nil, "the sound row is copied")
        #expect(second.result.stderr.contains("2 rejected"), "\(second.result.stderr)")
        // The source's body came from the remote too: the origin is not asked.
        #expect(try machine.server.counts().total == 0)
        let puts = Set(nginx.requests().filter { $0.method == "PUT" }.map(\.uri))
        #expect(puts.contains("/cache/" + RemoteStore.path(.blobs, blobSHA)), "\(puts)")
        #expect(puts.contains("/cache/" + pngRecord), "\(puts)")
        #expect(ContentDigest.of(try Data(contentsOf: blob)) == blobSHA, "the blob is repaired")
    }

    @Test("A remote that is down, stalls or answers 500 costs one warning; every row is rendered locally",
          arguments: ["down", "stalls", "500"])
    func unavailable(kind: String) async throws {
        let machine = try RemoteCacheFixture("remote-\(kind)")
        let silent = try SilentListener()
        let remote = switch kind {
        case "down": "http://127.0.0.1:\(try FreePort.pick())/cache"
        case "stalls": "http://127.0.0.1:\(silent.port)/cache"
        default: machine.server.url("/status/500/cache")
        }
        let run = try await machine.run(remote: remote, timeout: 1)
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.rows.map(\.status) == ["written", "written", "written"])
        #expect(machine.outputBytes().allSatisfy { $0 != nil })
        let warnings = RemoteCacheFixture.warnings(run)
        #expect(warnings.count == 1, "\(run.result.stderr)")
        #expect(warnings.first?.contains("rendered locally") == true)
    }

    @Test("--remote-cache-read-only reads the remote and writes nothing to it")
    func readOnly() async throws {
        let nginx = try await NginxServer.start()
        let machine = try RemoteCacheFixture("remote-read-only")
        let untrusted = try await machine.run(remote: nginx.cacheURL, ["--remote-cache-read-only"])
        #expect(untrusted.status == 0, "\(untrusted.result.stderr)")
        #expect(nginx.storedFiles.isEmpty)
        #expect(!nginx.requests().contains { $0.method == "PUT" })

        try machine.forgetLocal()
        let trusted = try await machine.run(remote: nginx.cacheURL)
        #expect(trusted.status == 0)
        #expect(nginx.storedFiles.count == 8)

        try machine.forgetLocal()
        try nginx.clearLog()
        let reader = try await machine.run(remote: nginx.cacheURL, ["--remote-cache-read-only"])
        #expect(reader.report?.rows.allSatisfy { $0.ms?["render"] == nil } == true)
        let methods = Set(nginx.requests().map(\.method))
        #expect(!methods.isEmpty && methods.isSubset(of: ["GET", "HEAD"]), "\(methods)")
        let runs = try await machine.remoteCountsOfRuns()
        let counts = try #require(runs.last ?? nil)
        #expect(counts.upload == 0 && counts.hit >= 3 && counts.miss == 0, "\(counts)")
    }

    @Test("Remote cache flags are checked before any work")
    func flags() async throws {
        let space = try Workspace("remote-flags")
        let cases: [([String], [String: String], String)] = [
            (["--remote-cache", "http://127.0.0.1:9/c", "--offline"], [:], "--offline opens no connection"),
            (["--remote-cache", "http://u:p@127.0.0.1:9/c"], [:], "no credentials in the URL"),
            (["--remote-cache", "ftp://127.0.0.1/c"], [:], "give an http://, https:// or s3:// URL"),
            (["--remote-cache", "s3://bucket/p"], ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""],
             "AWS_ACCESS_KEY_ID"),
            (["--remote-cache-read-only"], [:], "need --remote-cache"),
        ]
        for (arguments, environment, message) in cases {
            let run = try await space.run(manifest: "src\na.png\n", arguments, environment: environment)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.result.stderr.contains(message), "\(arguments): \(run.result.stderr)")
        }
    }
}
