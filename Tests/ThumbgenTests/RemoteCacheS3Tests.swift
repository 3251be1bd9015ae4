import Foundation
import Testing
@testable import Thumbgen

/// `--remote-cache s3://bucket/prefix` against moto's S3 in server mode on 127.0.0.1, with IAM
/// authentication on: requests signed by libcurl's SigV4 with the user's key from the AWS
/// environment variables. The same checks as against nginx, and a wrong secret: 403, reported
/// once, then local work.
@Suite("Remote cache: S3 (moto, IAM authentication on)")
struct RemoteCacheS3Tests {
    static let prefix = "team/thumbs"

    static func run(_ machine: RemoteCacheFixture, _ moto: MotoServer, _ extra: [String] = [],
                    secret: String? = nil) async throws -> Workspace.Run {
        try await machine.run(remote: "s3://\(moto.account.bucket)/\(prefix)",
                              ["--remote-cache-endpoint", moto.endpoint] + extra,
                              environment: moto.environment(secret: secret))
    }

    @Test("A fresh machine renders nothing and fetches no source; uploads are signed and land under the prefix")
    func freshMachine() async throws {
        let moto = try await MotoServer.start()
        let machine = try RemoteCacheFixture("s3-fresh")
        let first = try await Self.run(machine, moto)
        #expect(first.status == 0, "\(first.result.stderr)")
        #expect(RemoteCacheFixture.warnings(first).isEmpty, "\(first.result.stderr)")
        let objects = try await moto.objects()
        #expect(objects.count == 8, "\(objects)")
        #expect(objects.keys.allSatisfy { $0.hasPrefix(Self.prefix + "/v1/") })
        let made = machine.outputBytes()

        try machine.forgetLocal()
        let second = try await Self.run(machine, moto)
        #expect(second.status == 0, "\(second.result.stderr)")
        let rows = try #require(second.report?.rows)
        #expect(rows.allSatisfy { $0.status == "written" && $0.ms?["render"] == nil }, "\(rows)")
        #expect(machine.outputBytes() == made)
        #expect(try machine.server.counts().total == 0, "no source is fetched")
        #expect(try await moto.objects() == objects)
        let counts = try #require(try await machine.remoteCountsOfRuns().last ?? nil)
        #expect(counts.hit >= 3 && counts.upload == 0 && counts.failed == 0, "\(counts)")
    }

    @Test("A flipped blob in the bucket is a miss: rendered again, uploaded again, correct")
    func poisoned() async throws {
        let moto = try await MotoServer.start()
        let machine = try RemoteCacheFixture("s3-poison")
        let first = try await Self.run(machine, moto)
        let sha = try #require(first.report?.rows.first?.sha256)
        let made = machine.outputBytes()
        let key = Self.prefix + "/" + RemoteStore.path(.blobs, sha)
        try await moto.flip(key)
        #expect(try await moto.sha256(key) != sha)

        try machine.forgetLocal()
        let second = try await Self.run(machine, moto)
        #expect(second.status == 0, "\(second.result.stderr)")
        #expect(machine.outputBytes() == made)
        #expect(second.report?.rows.first?.sha256 == sha)
        #expect(second.report?.rows.first?.ms?["render"] != nil)
        #expect(second.result.stderr.contains("1 rejected"), "\(second.result.stderr)")
        #expect(try await moto.sha256(key) == sha, "the blob is uploaded again")
    }

    @Test("A wrong secret gets 403: one warning, then every row is rendered locally")
    func wrongSecret() async throws {
        let moto = try await MotoServer.start()
        let machine = try RemoteCacheFixture("s3-403")
        let run = try await Self.run(machine, moto, secret: "not-the-secret")
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.rows.map(\.status) == ["written", "written", "written"])
        let warnings = RemoteCacheFixture.warnings(run)
        #expect(warnings.count == 1, "\(run.result.stderr)")
        #expect(warnings.first?.contains("403") == true, "\(run.result.stderr)")
        #expect(try await moto.objects().isEmpty)
    }

    @Test("--remote-cache-read-only writes nothing to the bucket")
    func readOnly() async throws {
        let moto = try await MotoServer.start()
        let machine = try RemoteCacheFixture("s3-read-only")
        let run = try await Self.run(machine, moto, ["--remote-cache-read-only"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(RemoteCacheFixture.warnings(run).isEmpty, "\(run.result.stderr)")
        #expect(try await moto.objects().isEmpty)
    }
}
