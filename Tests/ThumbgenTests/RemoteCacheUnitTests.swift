import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// The remote cache's parts that need no server: settings from a URL and the environment, the
/// addresses of files in each backend, the strict reading of remote records, and the circuit
/// breaker's one warning.
@Suite("Remote cache: settings, addresses, records, breaker")
struct RemoteCacheUnitTests {
    static let digest = String(repeating: "ab", count: 32)

    @Test("HTTP credentials come from the environment: a bearer token, else user and password, else the netrc")
    func httpCredentials() throws {
        let bearer = try RemoteCacheSettings(url: "https://cache.example/bazel/", environment: [
            "THUMBGEN_REMOTE_CACHE_TOKEN": "t0k", "THUMBGEN_REMOTE_CACHE_USER": "u"])
        #expect(bearer.backend == .http(base: "https://cache.example/bazel"))
        #expect(bearer.headers == ["Authorization: Bearer t0k"] && bearer.auth == .none)
        let basic = try RemoteCacheSettings(url: "https://cache.example/c", environment: [
            "THUMBGEN_REMOTE_CACHE_USER": "u", "THUMBGEN_REMOTE_CACHE_PASSWORD": "p"])
        #expect(basic.auth == .basic(user: "u", password: "p") && basic.headers.isEmpty)
        let netrc = try RemoteCacheSettings(url: "http://127.0.0.1:8080/c", environment: ["NETRC": "/run/netrc"])
        #expect(netrc.auth == .netrc(file: "/run/netrc"))
        #expect(throws: RemoteCacheError.self) {
            try RemoteCacheSettings(url: "https://user:secret@cache.example/c", environment: [:])
        }
    }

    @Test("S3: path-style under an endpoint, virtual-hosted on AWS, signed for the region")
    func s3Addresses() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "ST",
                           "AWS_DEFAULT_REGION": "eu-west-1"]
        let minio = try RemoteCacheSettings(url: "s3://thumbs/team/a", endpoint: "http://127.0.0.1:9000/",
                                            environment: environment)
        #expect(RemoteStore(settings: minio).url(.blobs, Self.digest)
                == "http://127.0.0.1:9000/thumbs/team/a/v1/blobs/ab/\(Self.digest)")
        #expect(minio.auth == .awsSigV4(provider: "aws:amz:eu-west-1:s3", keyID: "AK", secret: "SK"))
        #expect(minio.headers == ["x-amz-security-token: ST"])
        let aws = try RemoteCacheSettings(url: "s3://thumbs", environment: environment)
        #expect(RemoteStore(settings: aws).url(.outputs, Self.digest)
                == "https://thumbs.s3.eu-west-1.amazonaws.com/v1/outputs/ab/\(Self.digest)")
        for bad in ["s3://Bad_Bucket/p", "s3://thumbs/a/../b", "s3://thumbs/a b"] {
            #expect(throws: RemoteCacheError.self, "\(bad)") {
                try RemoteCacheSettings(url: bad, environment: environment)
            }
        }
    }

    @Test("A remote record is believed only whole, of its kind, and for the key or URL asked")
    func records() {
        let record = OutputRecord(sha256: Self.digest, width: 4, height: 3, format: .png, bytes: 10)
        let bytes = RemoteEntries.encode(record, key: "k1")
        #expect(RemoteEntries.output(bytes, key: "k1") == record)
        #expect(RemoteEntries.output(bytes, key: "k2") == nil, "a record moved under another key")
        var flipped = bytes
        flipped[20] ^= 1
        #expect(RemoteEntries.output(flipped, key: "k1") == nil)
        #expect(RemoteEntries.output(Array(bytes.dropLast(3)), key: "k1") == nil)
        let url = URLRecord(url: "https://a/b.jpg", digest: Self.digest, etag: "\"e\"", lastModified: nil,
                            storedAt: 100, freshFor: 60)
        let urlBytes = RemoteEntries.encode(url)
        #expect(RemoteEntries.url(urlBytes, url: "https://a/b.jpg") == url)
        #expect(RemoteEntries.url(urlBytes, url: "https://a/c.jpg") == nil)
        #expect(RemoteEntries.output(urlBytes, key: "k1") == nil, "a URL record is not an output record")
    }

    @Test("The breaker warns once and opens after three failures in a row; an answer resets the count")
    func breaker() {
        let warnings = Mutex<[String]>([])
        let health = RemoteHealth(threshold: 3, location: "http://x") { message in
            warnings.withLock { $0.append(message) }
        }
        health.failed("GET a", .status(500, nil))
        health.failed("GET b", .status(500, nil))
        health.succeeded()
        health.failed("GET c", .transport(.connection("refused")))
        health.failed("GET d", .transport(.connection("refused")))
        #expect(health.isAvailable)
        health.failed("GET e", .transport(.timeout("stalled")))
        #expect(!health.isAvailable)
        #expect(warnings.withLock { $0.count } == 1)
        #expect(warnings.withLock { $0.first?.contains("GET a: HTTP status 500") } == true)
    }
}
