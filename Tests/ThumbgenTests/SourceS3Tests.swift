import Foundation
import Testing
@testable import Thumbgen

/// `s3://bucket/key` sources against moto's S3 on 127.0.0.1 with IAM authentication on: read
/// signed with libcurl's SigV4 from the AWS environment the S3 remote cache reads, revalidated
/// by their ETag on the next run, and refused clearly without a key (no request is sent).
@Suite("Sources: s3:// (moto, IAM authentication on)")
struct SourceS3Tests {
    static let key = "photos/q.jpg"

    static func setUp(_ name: String) async throws -> (Workspace, MotoServer, String) {
        let moto = try await MotoServer.start()
        let space = try Workspace(name)
        let image = try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        try await moto.put(key, from: image)
        let manifest = CSV.manifest(["src", "out"], [["s3://\(moto.account.bucket)/\(key)", "q.png"]])
        return (space, moto, manifest)
    }

    static func environment(_ moto: MotoServer, secret: String? = nil) -> [String: String] {
        moto.environment(secret: secret).merging(["AWS_ENDPOINT_URL": moto.endpoint, "AWS_SESSION_TOKEN": ""]) { $1 }
    }

    @Test("An s3:// source is read with the AWS key, and revalidated on the next run")
    func readSigned() async throws {
        let (space, moto, manifest) = try await Self.setUp("s3-source")
        let first = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network"],
                                        environment: Self.environment(moto))
        #expect(first.status == 0, "\(first.result.stderr)")
        let row = try #require(first.report?.row(2))
        #expect(row.status == "written" && row.http?.status == 200, "\(row)")
        #expect(row.width == 32 && row.height == 21, "\(row)")
        #expect(!first.result.stderr.contains(moto.account.secret))

        let second = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network"],
                                         environment: Self.environment(moto))
        #expect(second.report?.row(2)?.cache == "revalidated", "\(String(describing: second.report?.row(2)))")
        #expect(second.report?.row(2)?.http?.status == 304)
    }

    @Test("Without an AWS key an s3:// row fails at once, saying what to set")
    func refusedWithoutCredentials() async throws {
        let (space, _, manifest) = try await Self.setUp("s3-source-nokey")
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network"],
                                      environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
        let row = try #require(run.report?.row(2))
        #expect(row.status == "failed")
        #expect(row.error?.code == "fetch_setup_failed", "\(row)")
        #expect(row.error?.message.contains("AWS_ACCESS_KEY_ID") == true, "\(String(describing: row.error))")
        #expect((row.http?.attempts ?? 0) == 0, "no request was sent")
    }

    @Test("A wrong secret: the row fails with S3's 403, and the secret is nowhere")
    func wrongSecret() async throws {
        let (space, moto, manifest) = try await Self.setUp("s3-source-403")
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network", "--retries", "0"],
                                      environment: Self.environment(moto, secret: "not-the-secret"))
        let row = try #require(run.report?.row(2))
        #expect(row.error?.code == "http_error" && row.error?.message.contains("403") == true, "\(row)")
        #expect(!run.result.stderr.contains("not-the-secret"))
    }
}
