import Foundation
import Testing
@testable import Thumbgen

/// A URL source's user info (`http://alice:secret@host/a.jpg`): the login reaches the URL's
/// origin and no other, and the password is in nothing a run leaves or prints.
@Suite("Sources: a login in the URL, sent to its origin and stored nowhere")
struct SourceLoginTests {
    @Test("The user info is taken out of the text, percent-decoded, whatever else the URL holds",
          arguments: [
              ("http://alice:s%3Acret@host/a.jpg", "http://host/a.jpg", "alice", "s:cret"),
              ("https://bob@host:8443/a.jpg?x=@y", "https://host:8443/a.jpg?x=@y", "bob", ""),
              ("http://a:b@c@host/p", "http://host/p", "a", "b@c"),
              ("http://host/a@b.jpg", "http://host/a@b.jpg", nil, nil),
              ("photos/me@home.jpg", "photos/me@home.jpg", nil, nil),
              ("http://u:p@[::1", "http://[::1", "u", "p"),
          ] as [(String, String, String?, String?)])
    func split(text: String, shown: String, user: String?, password: String?) {
        let (result, login) = SourceLogin.split(text)
        #expect(result == shown)
        #expect(login?.user == user)
        #expect(login?.password == password)
    }

    @Test("A src refused before it is read as a URL (not UTF-8) shows no password either")
    func refusedCell() {
        let record = ManifestRecord(line: 4, values: [.src: "https://alice:pw-77aa@host/caf\\xe9.jpg"],
                                    invalidColumns: [.src])
        guard case .failure(let error) = RowParser(baseDirectory: "/").parse(record) else {
            Issue.record("a cell that is not UTF-8 was accepted")
            return
        }
        #expect(error.column == "src")
        #expect(!error.description.contains("pw-77aa"), "\(error)")
        #expect(error.description.contains("https://host/caf"), "\(error)")
    }

    @Test("The login reaches its origin, not the next hop; no file the run leaves holds the password")
    func sentAndNeverStored() async throws {
        let (space, a, b) = try SourceCredentialsTests.serve("login-in-url")
        let secret = "pw-9f3b1c"
        func withLogin(_ url: String) -> String { url.replacingOccurrences(of: "://", with: "://alice:\(secret)@") }
        let hop = SourceCredentialsTests.redirect(to: b.url("/img/q.jpg?via=a"))
        let manifest = CSV.manifest(["src", "out", "fit"], [
            [withLogin(a.url("/img/q.jpg")), "d.png", ""],
            [withLogin(a.url(hop)), "r.png", ""],
            [withLogin(a.url("/img/q.jpg?bad=1")), "x.png", "squash"],   // refused by the parser
            [withLogin(a.url("/status/404")), "n.png", ""],              // fails at the server
        ])
        let events = space.folder.file("events.jsonl").path, html = space.folder.file("sheet.html").path
        let index = space.folder.file("index.json").path
        let run = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network", "--events", events,
                                                           "--html", html, "--index", index, "-v"])
        #expect(run.status == 1, "\(run.result.stderr)")
        let basic = "Basic " + Data("alice:\(secret)".utf8).base64EncodedString()
        let atA = try a.counts().lastHeaders
        #expect(atA["/img/q.jpg"]?["Authorization"] == basic, "\(atA)")
        #expect(atA[hop]?["Authorization"] == basic)
        let atB = try b.counts()
        #expect(atB["/img/q.jpg?via=a"] == 1, "the redirect was followed")
        #expect(atB.lastHeaders["/img/q.jpg?via=a"]?["Authorization"] == nil, "\(atB.lastHeaders)")
        #expect(run.report?.row(2)?.status == "written")
        #expect(run.report?.row(2)?.src == a.url("/img/q.jpg"), "the report's src is the URL without its user info")
        #expect(run.report?.row(4)?.error?.code == "invalid_row")
        #expect(run.report?.row(4)?.src == a.url("/img/q.jpg?bad=1"))
        #expect(run.report?.row(5)?.error?.code == "http_error")

        // A second run revalidates under the same name (the URL without its user info).
        let again = try await space.run(manifest: manifest, ["--size", "32", "--allow-private-network"])
        #expect(again.report?.row(2)?.cache == "revalidated" || again.report?.row(2)?.cache == "hit",
                "\(String(describing: again.report?.row(2)))")
        let explain = try await CLIRunner.run(["explain", space.folder.file("manifest.csv").path, "2", "3", "4"],
                                              cacheDirectory: space.cache)
        #expect(explain.stdout.contains(a.url("/img/q.jpg")), "\(explain.stdout)")

        var leaks: [String] = []
        for file in TemporaryDirectory.files(under: space.folder.url) where file != "manifest.csv" {
            let data = (try? Data(contentsOf: space.folder.file(file))) ?? Data()
            if data.range(of: Data(secret.utf8)) != nil { leaks.append(file) }
        }
        for (name, text) in [("stdout", run.result.stdout), ("stderr", run.result.stderr),
                             ("explain", explain.stdout + explain.stderr), ("again", again.result.stderr)]
        where text.contains(secret) {
            leaks.append(name)
        }
        #expect(leaks.isEmpty, "the password is in \(leaks)")
        #expect(FileManager.default.fileExists(atPath: events) && FileManager.default.fileExists(atPath: html))
    }
}
