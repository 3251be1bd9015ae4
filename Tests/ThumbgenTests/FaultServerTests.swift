import Foundation
import Testing

/// The test HTTP server itself (`Support/fault_server.py`), checked with raw sockets so that
/// the fetching tests can trust each fault it injects.
@Suite struct FaultServerTests {
    /// What `a.png` holds: arbitrary bytes, since the server never looks inside a file.
    static let payload: [UInt8] = (0..<4000).map { UInt8($0 % 251) }

    /// The served folder, holding `a.png`.
    let folder: TemporaryDirectory
    /// A fresh server per test (Swift Testing makes a suite instance per test); it stops
    /// when the instance goes away.
    let server: FaultServer

    init() throws {
        folder = try TemporaryDirectory("faults")
        try folder.write(Data(Self.payload), to: "a.png")
        server = try FaultServer(root: folder.url)
    }

    @Test func servesValidatorsThenAnswersNotModified() throws {
        let first = try server.get("/img/a.png", headers: ["User-Agent": "fault-tests"])
        #expect(first.status == 200)
        #expect(first.body == Self.payload)
        #expect(first.declaredLength == Self.payload.count)
        #expect(first.header("Content-Type") == "image/png")
        let etag = try #require(first.header("ETag"))
        let lastModified = try #require(first.header("Last-Modified"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))

        let byTag = try server.get("/img/a.png", headers: ["If-None-Match": etag])
        #expect(byTag.status == 304)
        #expect(byTag.body.isEmpty)
        #expect(byTag.header("ETag") == etag)
        let byDate = try server.get("/img/a.png", headers: ["If-Modified-Since": lastModified])
        #expect(byDate.status == 304)
        let otherTag = try server.get("/img/a.png", headers: ["If-None-Match": "\"other\""])
        #expect(otherTag.status == 200)

        let counts = try server.counts()
        #expect(counts["/img/a.png"] == 4)
        #expect(counts.conditional["/img/a.png"] == 3)
        let options = try server.get("/img/a.png?max_age=60&etag=v1&type=text/plain")
        #expect(options.header("Cache-Control") == "max-age=60")
        #expect(options.header("ETag") == "\"v1\"")
        #expect(options.header("Content-Type") == "text/plain")
    }

    @Test func truncateResetAndStallCutTheBody() throws {
        let truncated = try server.get("/truncate/a.png")
        #expect(truncated.status == 200)
        #expect(truncated.declaredLength == Self.payload.count)
        #expect(truncated.body == Array(Self.payload.prefix(Self.payload.count / 2)))
        #expect(truncated.ending == .closed)

        let reset = try server.get("/reset/1000/a.png")
        #expect(reset.declaredLength == Self.payload.count)
        #expect(reset.body == Array(Self.payload.prefix(1000)))
        #expect(reset.ending == .reset)

        // The stall never ends by itself; a second of silence is how the test gets out.
        let stalled = try server.get("/stall/100/a.png", timeout: .seconds(1))
        #expect(stalled.declaredLength == Self.payload.count)
        #expect(stalled.body == Array(Self.payload.prefix(100)))
        #expect(stalled.ending == .timedOut)
    }

    @Test func flakyAnswersTheFailureKTimesThenServes() throws {
        let path = "/flaky/2/503/a.png?retry_after=1"
        let responses = try (0..<3).map { _ in try server.get(path) }
        #expect(responses.map(\.status) == [503, 503, 200])
        #expect(responses.map { $0.header("Retry-After") } == ["1", "1", nil])
        #expect(responses[2].body == Self.payload)

        try server.resetCounts()
        #expect(try server.get(path).status == 503)
        #expect(try server.get("/status/429?retry_after=5").header("Retry-After") == "5")
    }

    @Test func redirectChainReachesTheImage() throws {
        var path = "/redirect/3/a.png"
        var statuses: [Int] = []
        var last: RawHTTP.Response?
        for _ in 0..<10 {
            let response = try server.get(path)
            statuses.append(response.status)
            last = response
            guard response.status == 302, let location = response.header("Location") else { break }
            path = location
        }
        #expect(statuses == [302, 302, 302, 302, 200])
        #expect(path == "/img/a.png")
        #expect(last?.body == Self.payload)
        #expect(try server.get("/loop").header("Location") == "/loop")
        let away = try server.get("/redirect-to?url=http://localhost:1/x")
        #expect(away.header("Location") == "http://localhost:1/x")
    }

    @Test func gzipOnlyWhenTheClientAcceptsIt() throws {
        let zipped = try server.get("/gzip/a.png", headers: ["Accept-Encoding": "gzip, deflate"])
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(zipped.body.prefix(2) == [0x1F, 0x8B])
        #expect(zipped.declaredLength == zipped.body.count)
        let plain = try server.get("/gzip/a.png")
        #expect(plain.header("Content-Encoding") == nil)
        #expect(plain.body == Self.payload)
        #expect(try server.counts().lastHeaders["/gzip/a.png"]?["Accept-Encoding"] == nil)
    }

    @Test func countsRequestsAndConnections() throws {
        // Three pipelined HTTP/1.1 requests on one connection: keep-alive must hold.
        let host = "Host: 127.0.0.1:\(server.port)\r\n"
        let pipelined = "GET /img/a.png HTTP/1.1\r\n\(host)\r\n"
            + "GET /big/100000 HTTP/1.1\r\n\(host)\r\n"
            + "GET /status/404 HTTP/1.1\r\n\(host)Connection: close\r\n\r\n"
        let responses = try RawHTTP.exchange(port: server.port, pipelined)
        #expect(responses.map(\.status) == [200, 200, 404])
        #expect(responses.first?.body == Self.payload)
        #expect(responses.dropFirst().first?.body.count == 100_000)
        #expect(responses.last?.ending == .closed)

        var counts = try server.counts()
        #expect(counts.connections == 1)
        #expect(counts.requests == ["/img/a.png": 1, "/big/100000": 1, "/status/404": 1])

        _ = try server.get("/img/a.png", headers: ["User-Agent": "second"])
        counts = try server.counts()
        #expect(counts.connections == 2)
        #expect(counts["/img/a.png"] == 2)
        #expect(counts.lastHeaders["/img/a.png"]?["User-Agent"] == "second")

        try server.resetCounts()
        counts = try server.counts()
        #expect(counts.total == 0)
        #expect(counts.connections == 0)
    }
}
