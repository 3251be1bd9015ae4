import Foundation
import Testing

/// `thumbgen site --fetch`: other sites' images, downloaded through the cache from a real
/// HTTP server on 127.0.0.1, made responsive as the site's own are.
@Suite("End to end: thumbgen site --fetch")
struct SiteFetchTests {
    @Test("Downloaded through the cache, sized from the body, rewritten; a 404 and a small image left alone with their reasons; a second run changes nothing")
    func fetch() async throws {
        let folder = try TemporaryDirectory("site-fetch")
        try folder.write(try SiteCommandTests.photo(width: 1200, height: 800).encoded(as: .jpeg), to: "served/big.jpg")
        try folder.write(try SiteCommandTests.photo(width: 60, height: 60).encoded(as: .png), to: "served/tiny.png")
        let server = try FaultServer(root: folder.file("served"))
        let page = """
            <p>
            <img src="\(server.url("/img/big.jpg"))" alt="remote">
            <img src="\(server.url("/img/tiny.png"))" alt="icon">
            <img src="\(server.url("/img/missing.jpg"))" alt="gone">
            </p>

            """
        try folder.write(page, to: "site/index.html")
        let arguments = ["site", "site", "--cache-dir", "cache", "--allow-private-network", "--retries", "0"]

        // Without --fetch they are other sites' images, left alone.
        let plain = try await CLIRunner.run(arguments, in: folder.url)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("images: 0 rewritten, 0 failed, 3 left alone (3 external)"), "\(plain.stderr)")

        let run = try await CLIRunner.run(arguments + ["--fetch", "--report", "report.json"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("/img/missing.jpg: not used: "), "\(run.stderr)")
        #expect(run.stderr.contains("images: 1 rewritten, 0 failed, 2 left alone (1 small, 1 unreachable)"), "\(run.stderr)")
        let rewritten = try String(contentsOf: folder.file("site/index.html"), encoding: .utf8)
        #expect(rewritten.contains("alt=\"remote\" srcset=\"_thumbgen/_remote/127.0.0.1/img/big-320."), "\(rewritten)")
        #expect(rewritten.contains(" 1200w\" sizes=\"100vw\" width=\"1200\" height=\"800\""), "\(rewritten)")
        #expect(rewritten.contains("<img src=\"\(server.url("/img/tiny.png"))\" alt=\"icon\">"))
        // Every candidate is a file of the site.
        let urls = rewritten.split(separator: "\"").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("_thumbgen/") }
            .map { String($0.split(separator: " ")[0]) }
        #expect(urls.count == 8)
        for url in urls { #expect(FileManager.default.fileExists(atPath: folder.file("site/" + url).path), "\(url)") }
        let pages = try #require(try ReportSchemaTests.json(folder.file("report.json"))["pages"] as? [[String: Any]])
        let elements = try #require(pages.first?["elements"] as? [[String: Any]])
        #expect(elements.map { $0["reason"] as? String ?? $0["status"] as? String } == ["rewritten", "small", "unreachable"])
        #expect(elements.first?["bytes_before"] as? Int == (try Data(contentsOf: folder.file("served/big.jpg"))).count)

        let second = try await CLIRunner.run(arguments + ["--fetch"], in: folder.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try String(contentsOf: folder.file("site/index.html"), encoding: .utf8) == rewritten)
        #expect(second.stderr.contains("(0 rewritten, 1 unchanged, 0 untouched)"), "\(second.stderr)")
    }

    @Test("--fetch needs the cache, where it keeps what it downloads")
    func needsCache() async throws {
        let folder = try TemporaryDirectory("site-fetch-nocache")
        try folder.write("<img src=\"https://example.com/a.jpg\">\n", to: "site/index.html")
        let run = try await CLIRunner.run(["site", "site", "--fetch", "--no-cache"], in: folder.url)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--fetch keeps the images it downloads in the cache"), "\(run.stderr)")
    }
}
