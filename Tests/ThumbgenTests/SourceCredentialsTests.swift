import Foundation
import Testing
@testable import Thumbgen

/// Credentials for sources: a netrc and a `--source-headers` file reach their host, and are
/// not sent after a redirect to another port or host (two test servers on 127.0.0.1 record the
/// headers they get); they never show in the report or the cache; bad files are refused, naming
/// the file and the line.
@Suite("Sources: credentials (netrc, --source-headers), sent to their origin only")
struct SourceCredentialsTests {
    /// A workspace with an image, served by two servers (two ports of one host).
    static func serve(_ name: String) throws -> (Workspace, FaultServer, FaultServer) {
        let space = try Workspace(name)
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        return (space, try FaultServer(root: space.folder.url), try FaultServer(root: space.folder.url))
    }

    /// A path on `from` redirecting to `target`.
    static func redirect(to target: String) -> String {
        "/redirect-to?url=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target)
    }

    /// Writes `text` as a private file (mode 600) in `space`.
    static func secretFile(_ space: Workspace, _ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let url = try space.folder.write(text, to: name)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url.path
    }

    /// What must never appear in what thumbgen leaves: the report, standard error, the cache's files.
    static func leaked(_ secret: String, _ space: Workspace, _ run: Workspace.Run) -> [String] {
        var places: [String] = []
        if run.result.stdout.contains(secret) || run.result.stderr.contains(secret) { places.append("output") }
        if let report = try? String(contentsOf: space.reportURL, encoding: .utf8), report.contains(secret) {
            places.append("report")
        }
        for file in TemporaryDirectory.files(under: space.cache) {
            let data = (try? Data(contentsOf: space.cache.appendingPathComponent(file))) ?? Data()
            if data.range(of: Data(secret.utf8)) != nil { places.append(file) }
        }
        return places
    }

    @Test("A netrc login reaches its host, and is not sent after a redirect to another port")
    func netrcStaysOnItsPort() async throws {
        let (space, a, b) = try Self.serve("creds-netrc")
        let netrc = try Self.secretFile(space, "netrc", "machine 127.0.0.1 login reader password s3cret-netrc\n")
        let direct = "/img/q.jpg"
        let hop = Self.redirect(to: b.url("/img/q.jpg?via=a"))
        let manifest = CSV.manifest(["src", "out"], [[a.url(direct), "d.png"], [a.url(hop), "r.png"]])
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network", "--netrc-file", netrc])
        #expect(run.status == 0, "\(run.result.stderr)")
        let basic = "Basic " + Data("reader:s3cret-netrc".utf8).base64EncodedString()
        let atA = try a.counts().lastHeaders
        #expect(atA[direct]?["Authorization"] == basic, "\(atA)")
        #expect(atA[hop]?["Authorization"] == basic, "the first request of the redirect is to the netrc's host")
        let atB = try b.counts()
        #expect(atB["/img/q.jpg?via=a"] == 1, "the redirect was followed")
        #expect(atB.lastHeaders["/img/q.jpg?via=a"]?["Authorization"] == nil, "\(atB.lastHeaders)")
        #expect(Self.leaked("s3cret-netrc", space, run).isEmpty)
        #expect(Self.leaked(basic.dropFirst(6).description, space, run).isEmpty)
    }

    @Test("A --source-headers line reaches its host and port, and is not sent after a redirect to another host or port")
    func headersStayOnTheirOrigin() async throws {
        let (space, a, b) = try Self.serve("creds-headers")
        let headers = try Self.secretFile(space, "headers", """
            # tokens for the image servers
            127.0.0.1:\(a.port) X-Source-Token: tok-a
            127.0.0.1:\(b.port) Authorization: Bearer tok-b

            """)
        let toB = Self.redirect(to: b.url("/img/q.jpg?via=port"))
        let toOtherHost = Self.redirect(to: "http://localhost:\(a.port)/img/q.jpg?via=host")
        let manifest = CSV.manifest(["src", "out"], [
            [a.url("/img/q.jpg"), "a.png"], [a.url(toB), "b.png"], [a.url(toOtherHost), "c.png"],
            [b.url("/img/q.jpg?direct=1"), "d.png"],
        ])
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network", "--source-headers", headers])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(!run.result.stderr.contains("warning"), "a private file: no warning: \(run.result.stderr)")
        let atA = try a.counts().lastHeaders, atB = try b.counts().lastHeaders
        #expect(atA["/img/q.jpg"]?["X-Source-Token"] == "tok-a", "\(atA)")
        #expect(atA[toB]?["X-Source-Token"] == "tok-a")
        #expect(atA[toOtherHost]?["X-Source-Token"] == "tok-a")
        // After the hop: neither A's token nor B's own (the hop left the first request's origin).
        #expect(atB["/img/q.jpg?via=port"] != nil && atB["/img/q.jpg?via=port"]?["X-Source-Token"] == nil, "\(atB)")
        #expect(atB["/img/q.jpg?via=port"]?["Authorization"] == nil)
        #expect(atA["/img/q.jpg?via=host"] != nil && atA["/img/q.jpg?via=host"]?["X-Source-Token"] == nil, "\(atA)")
        // B's own line reaches B, and only B.
        #expect(atB["/img/q.jpg?direct=1"]?["Authorization"] == "Bearer tok-b")
        #expect(atA.values.allSatisfy { $0["Authorization"] == nil })
        for secret in ["tok-a", "tok-b"] { #expect(Self.leaked(secret, space, run).isEmpty, "\(secret)") }
    }

    @Test("Within its origin a credential follows redirects; a redirect loop still ends at --max-redirects")
    func sameOriginRedirects() async throws {
        let (space, a, _) = try Self.serve("creds-same-origin")
        let headers = try Self.secretFile(space, "headers", "127.0.0.1:\(a.port) X-Source-Token: tok-a\n")
        let manifest = CSV.manifest(["src", "out"], [[a.url("/redirect/2/q.jpg?same=1"), "a.png"], [a.url("/loop"), "b.png"]])
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network", "--max-redirects", "3",
                                                           "--source-headers", headers])
        let atA = try a.counts()
        for path in ["/redirect/2/q.jpg?same=1", "/redirect/1/q.jpg?same=1", "/redirect/0/q.jpg?same=1", "/img/q.jpg?same=1"] {
            #expect(atA.lastHeaders[path]?["X-Source-Token"] == "tok-a", "\(path): \(atA.lastHeaders)")
        }
        #expect(run.report?.row(2)?.status == "written", "\(run.result.stderr)")
        #expect(run.report?.row(3)?.error?.code == "too_many_redirects", "\(String(describing: run.report?.row(3)))")
        #expect(atA["/loop"] == 4, "the first request and three redirects: \(atA)")
    }

    @Test("A headers file others may read gets one warning; the environment names it too")
    func headersFileReadableByOthers() async throws {
        let (space, a, _) = try Self.serve("creds-mode")
        let headers = try Self.secretFile(space, "headers", "127.0.0.1 X-Source-Token: tok\n", mode: 0o644)
        let manifest = CSV.manifest(["src", "out"], [[a.url("/img/q.jpg"), "a.png"], [a.url("/img/q.jpg?2"), "b.png"]])
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network"],
                                      environment: ["THUMBGEN_SOURCE_HEADERS": headers])
        #expect(run.status == 0, "\(run.result.stderr)")
        let warnings = run.result.stderr.components(separatedBy: "\n").filter { $0.contains("group or others") }
        #expect(warnings.count == 1, "\(run.result.stderr)")
        #expect(warnings.first?.contains(headers) == true)
        #expect(try a.counts().lastHeaders["/img/q.jpg"]?["X-Source-Token"] == "tok")
    }

    @Test("A netrc with entries that others may read gets one warning, named by the flag or NETRC; a private one none",
          arguments: [("--netrc-file", 0o644), ("NETRC", 0o640), ("--netrc-file", 0o600)])
    func netrcReadableByOthers(via: String, mode: Int) async throws {
        let (space, a, _) = try Self.serve("creds-netrc-mode")
        let netrc = try Self.secretFile(space, "netrc", "machine 127.0.0.1 login reader password pw\n", mode: mode)
        let manifest = CSV.manifest(["src", "out"], [[a.url("/img/q.jpg"), "a.png"], [a.url("/img/q.jpg?2"), "b.png"]])
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network"]
                                          + (via == "NETRC" ? [] : ["--netrc-file", netrc]),
                                      environment: via == "NETRC" ? ["NETRC": netrc] : [:])
        #expect(run.status == 0, "\(run.result.stderr)")
        let warnings = run.result.stderr.components(separatedBy: "\n").filter { $0.contains("group or others") }
        #expect(warnings.count == (mode & 0o044 != 0 ? 1 : 0), "\(run.result.stderr)")
        if mode & 0o044 != 0 { #expect(warnings.first?.contains("netrc \(netrc)") == true, "\(warnings)") }
        #expect(try a.counts().lastHeaders["/img/q.jpg"]?["Authorization"] != nil, "the login is still sent")
    }

    @Test("Bad credential files are refused before any request, naming the file and the line",
          arguments: [
              ("127.0.0.1 X-Token: a\nno-header-here\n", "line 2"),
              ("# ok\n127.0.0.1:99999 X-Token: a\n", "line 2"),
              ("127.0.0.1 Bad Name: a\n", "line 1"),
              ("https://host/ X-Token: a\n", "line 1"),
              ("127.0.0.1 X-Token:\n", "line 1"),
          ])
    func malformedHeadersFile(text: String, line: String) async throws {
        let (space, a, _) = try Self.serve("creds-malformed")
        let headers = try Self.secretFile(space, "headers", text)
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], [[a.url("/img/q.jpg"), "a.png"]]),
                                      ["--allow-private-network", "--source-headers", headers])
        #expect(run.status == 2, "\(run.result.stderr)")
        #expect(run.result.stderr.contains("--source-headers \(headers), \(line):"), "\(run.result.stderr)")
        #expect(try a.counts().total == 0)
    }

    @Test("An unreadable headers file or netrc is refused, naming it")
    func unreadableFiles() async throws {
        let (space, a, _) = try Self.serve("creds-unreadable")
        let manifest = CSV.manifest(["src", "out"], [[a.url("/img/q.jpg"), "a.png"]])
        let missing = space.folder.file("nowhere").path
        let headers = try await space.run(manifest: manifest, ["--source-headers", missing])
        #expect(headers.status == 2)
        #expect(headers.result.stderr.contains("--source-headers \(missing): cannot be read"), "\(headers.result.stderr)")
        let netrc = try await space.run(manifest: manifest, ["--netrc-file", missing])
        #expect(netrc.status == 2)
        #expect(netrc.result.stderr.contains("--netrc-file \(missing): cannot be read"), "\(netrc.result.stderr)")
        #expect(try a.counts().total == 0)
    }

    @Test("SourceHeadersFile and NetrcHosts read what they should, and nothing of the secrets")
    func parsers() throws {
        let lines = try SourceHeadersFile.parse("  # c\nExample.COM X-A: 1 2\nexample.com:8443\tAuthorization: Bearer x\n", path: "f")
        #expect(lines.map(\.origin) == ["example.com", "example.com:8443"])
        #expect(lines.map(\.name) == ["X-A", "Authorization"])
        let netrc = NetrcHosts(text: "machine A.example login u password p\nmacdef init\nmachine fake\n\ndefault login x", path: "n")
        #expect(netrc.machines == ["a.example"] && netrc.hasDefault)
        var credentials = SourceCredentials()
        credentials.headers = lines
        #expect(!credentials.description.contains("Bearer") && !credentials.description.contains("1 2"))
        let https = try #require(URL(string: "https://example.com:8443/a.jpg"))
        #expect(credentials.forTransfer(https, authorised: true)?.headers == ["X-A: 1 2", "Authorization: Bearer x"])
        let http = try #require(URL(string: "http://example.com/a.jpg"))
        #expect(credentials.forTransfer(http, authorised: true)?.headers == ["X-A: 1 2"])
        #expect(credentials.forTransfer(http, authorised: false) == nil)
    }

    @Test("A netrc with CRLF line ends names its hosts, macros left out (found by fuzzing)")
    func netrcCRLF() {
        let netrc = NetrcHosts(text: "machine a.example.com\r\n  login u\r\n  password p\r\nmacdef init\r\nmachine fake\r\n\r\n"
                               + "machine b.example.com login v password q\r\n", path: "n")
        #expect(netrc.machines == ["a.example.com", "b.example.com"])
    }

    @Test("Vertical tab and form feed separate netrc tokens, as in libcurl (found by fuzzing)")
    func netrcControlSpace() {
        #expect(NetrcHosts(text: "machine a.example\u{0C}login u\u{0B}password p", path: "n").machines == ["a.example"])
    }

    @Test("A headers file with CRLF line ends gives one header a line, each to its own host (found by fuzzing)")
    func headersCRLF() throws {
        let lines = try SourceHeadersFile.parse("example.com Authorization: Bearer abc\r\ncdn.example.com:443 X-Key: v\r\n", path: "f")
        #expect(lines.map(\.origin) == ["example.com", "cdn.example.com:443"])
        #expect(lines.map(\.line) == ["Authorization: Bearer abc", "X-Key: v"])
    }

    @Test("A carriage return or NUL inside a header's value is refused, naming the line")
    func headersControlInValue() {
        for text in ["a.example X-A: 1\rb.example X-B: 2", "\na.example X-A: 1\0X-B: 2"] {
            #expect(throws: SourceHeadersError.self) { try SourceHeadersFile.parse(text, path: "f") }
        }
        do {
            _ = try SourceHeadersFile.parse("\na.example X-A: 1\0X-B: 2", path: "f")
        } catch {
            #expect(error.line == 2)
        }
    }
}
