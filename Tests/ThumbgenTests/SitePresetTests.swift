import Foundation
import Testing
@testable import Thumbgen

/// `thumbgen site` with `thumbgen.toml` presets chosen per image (`data-thumbgen-preset`) and
/// per page (`[site.rules]`), and the report's `pages` section.
@Suite("End to end: thumbgen site presets and its report's pages")
struct SitePresetTests {
    static let config = """
        [site.rules]
        "blog/**" = "post"

        [presets.card]
        size = "400x300"
        quality = 55
        sizes = "400px"

        [presets.post]
        widths = [480, 960]
        formats = "none"

        """

    static let home = """
        <!DOCTYPE html><html><body>
        <img src="images/beach.jpg" alt="hero">
        <img src="images/beach.jpg" data-thumbgen-preset="card" alt="card">
        <img src="images/beach.jpg" data-thumbgen-preset="nosuch" alt="typo">
        <img src="https://example.com/x.jpg" alt="elsewhere">
        </body></html>

        """

    static let post = """
        <!DOCTYPE html><html><body>
        <img src="../images/beach.jpg" alt="post">
        <img src="../images/beach.jpg" data-thumbgen-preset="card" alt="card here too">
        </body></html>

        """

    /// The output file named by the first candidate of `srcset` whose URL contains `needle`.
    static func candidate(_ page: String, _ needle: String) throws -> String {
        let urls = page.split(separator: "\"").flatMap { $0.split(separator: ",") }
            .map { String($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
        return try #require(urls.first { $0.contains(needle) }, "no \(needle) in the page")
    }

    @Test("An image's preset (its attribute, else a path rule) beats the flags; a preset output is byte-identical to its columns written out; the report lists every element")
    func presetsPerImage() async throws {
        let folder = try TemporaryDirectory("site-presets")
        try folder.write(try SiteCommandTests.photo(width: 2000, height: 1200).encoded(as: .jpeg, quality: 85),
                         to: "site/images/beach.jpg")
        try folder.write(Self.config, to: "thumbgen.toml")
        try folder.write(Self.home, to: "site/index.html")
        try folder.write(Self.post, to: "site/blog/a.html")
        let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache", "--quality", "90",
                                           "--report", "report.json"], in: folder.url)
        // The typo is a failure, named by page and line; the rest of the site is still rewritten.
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("index.html:4: <img src=\"images/beach.jpg\">: names no preset nosuch (the presets: card, post)"),
                "\(run.stderr)")
        #expect(run.stderr.contains("images: 4 rewritten, 1 failed, 1 left alone (1 external)"), "\(run.stderr)")

        let site = folder.file("site")
        let home = try String(contentsOf: site.appendingPathComponent("index.html"), encoding: .utf8)
        let post = try String(contentsOf: site.appendingPathComponent("blog/a.html"), encoding: .utf8)
        // The card: cut to 4:3, its own sizes; the ladder stops at the widest 4:3 box the
        // 2000x1200 source holds (1600x1200).
        #expect(home.contains("data-thumbgen-preset=\"card\" alt=\"card\" srcset=\"_thumbgen/images/beach-320."))
        #expect(home.contains("sizes=\"400px\" width=\"1600\" height=\"1200\""), "\(home)")
        #expect(home.contains(" 1600w\" sizes=\"400px\""))
        #expect(home.contains("<img src=\"images/beach.jpg\" data-thumbgen-preset=\"nosuch\" alt=\"typo\">"))
        // The page rule: widths 480 and 960, no <picture>; the image naming a preset keeps it.
        #expect(post.contains("<img src=\"../images/beach.jpg\" alt=\"post\" srcset=\"../_thumbgen/images/beach-480."), "\(post)")
        #expect(post.contains(" 960w\" sizes=\"100vw\" width=\"2000\" height=\"1200\" style="))
        #expect(post.contains("fetchpriority=\"high\" data-thumbgen=\"srcset sizes width height style fetchpriority\">"))
        #expect(post.contains("data-thumbgen-preset=\"card\" alt=\"card here too\" srcset=\"../_thumbgen/images/beach-320."))

        // The card's 320-px JPEG is what a manifest row with the preset's columns makes, to the
        // byte; the hero's is the --quality 90 flag's.
        func jpeg(after marker: String) throws -> String {
            let at = try #require(home.range(of: marker))
            return try Self.candidate(String(home[at.upperBound...]), ".jpg")
        }
        let cardJPEG = try jpeg(after: "alt=\"card\"")
        let heroJPEG = try jpeg(after: "alt=\"hero\"")
        try folder.write("src,out,size,fit,quality,format\n"
                         + "site/images/beach.jpg,card.jpg,320x240,cover,55,jpeg\n"
                         + "site/images/beach.jpg,hero.jpg,320,,,jpeg\n", to: "explicit.csv")
        let explicit = try await CLIRunner.run(["explicit.csv", "--out", "explicit", "--no-cache", "--quality", "90",
                                                "--no-config"], in: folder.url)
        #expect(explicit.status == 0, "\(explicit.stderr)")
        let made = { (relative: String) in try Data(contentsOf: site.appendingPathComponent(relative)) }
        #expect(try made(cardJPEG) == Data(contentsOf: folder.file("explicit/card.jpg")), "\(cardJPEG)")
        #expect(try made(heroJPEG) == Data(contentsOf: folder.file("explicit/hero.jpg")), "\(heroJPEG)")
        #expect(SourceFacts.read(path: site.appendingPathComponent(cardJPEG).path).map { [$0.width, $0.height] } == [320, 240])

        // The report's pages: every <img>, in the order written, with what it cost before and after.
        let report = try ReportSchemaTests.json(folder.file("report.json"))
        let pages = try #require(report["pages"] as? [[String: Any]])
        #expect(pages.map { $0["page"] as? String } == ["blog/a.html", "index.html"])
        #expect(pages.map { $0["status"] as? String } == ["rewritten", "rewritten"])
        let elements = try #require(pages[1]["elements"] as? [[String: Any]])
        #expect(elements.map { $0["line"] as? Int } == [2, 3, 4, 5])
        #expect(elements.map { $0["status"] as? String } == ["rewritten", "rewritten", "failed", "skipped"])
        #expect(elements.map { $0["preset"] as? String } == [nil, "card", "nosuch", nil])
        #expect(elements[3]["reason"] as? String == "external")
        let sourceBytes = try Data(contentsOf: site.appendingPathComponent("images/beach.jpg")).count
        #expect(elements[1]["bytes_before"] as? Int == sourceBytes)
        #expect(elements[1]["widths"] as? [Int] == [320, 640, 960, 1280, 1600])
        let after = try #require(elements[1]["bytes_after"] as? [String: [Int]])
        #expect(Set(after.keys) == ["jpeg", "webp"])
        #expect(after["jpeg"]?.first == (try made(cardJPEG)).count)
        #expect(after.values.allSatisfy { $0.count == 5 && $0.allSatisfy { $0 > 0 } })
        if let violations = try ReportSchemaTests.violations(folder.file("report.json")) {
            #expect(violations.isEmpty, "\(violations)")
        }

        // A second run changes nothing; the report then says so page by page.
        let before = try [home, post]
        let second = try await CLIRunner.run(["site", "site", "--cache-dir", "cache", "--quality", "90",
                                              "--report", "report.json"], in: folder.url)
        #expect(second.status == 1, "\(second.stderr)")
        #expect(try [String(contentsOf: site.appendingPathComponent("index.html"), encoding: .utf8),
                     String(contentsOf: site.appendingPathComponent("blog/a.html"), encoding: .utf8)] == before)
        let again = try #require(try ReportSchemaTests.json(folder.file("report.json"))["pages"] as? [[String: Any]])
        #expect(again.map { $0["status"] as? String } == ["unchanged", "unchanged"])
    }

    @Test("A rule naming no preset, and a preset thumbgen site cannot apply, name the file and the key")
    func badPresets() async throws {
        let folder = try TemporaryDirectory("site-presets-bad")
        try folder.write(Self.post, to: "site/blog/a.html")
        try folder.write("[site.rules]\n\"blog/**\" = \"nope\"\n\n[presets.card]\nquality = 50\n", to: "thumbgen.toml")
        let rule = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.url)
        #expect(rule.status == 2, "\(rule.stderr)")
        #expect(rule.stderr.contains("thumbgen.toml:2: [site.rules] \"blog/**\": no preset nope ([presets.nope])"), "\(rule.stderr)")

        for (setting, named) in [("format = \"png\"", "[presets.card] format: thumbgen site sets it for every output"),
                                 ("size = \"400x300\"\nfit = \"inside\"", "[presets.card] fit: inside keeps no aspect"),
                                 ("widths = \"wide\"", "[presets.card] widths: takes whole numbers above 0")] {
            // A mistake where an image is to be made with the preset (here by a rule)...
            try folder.write("[site.rules]\n\"blog/**\" = \"card\"\n\n[presets.card]\n\(setting)\n", to: "thumbgen.toml")
            let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.url)
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains("thumbgen.toml: \(named)"), "\(run.stderr)")
            // ...and none where no image is: the preset may serve `render`.
            try folder.write("[presets.card]\n\(setting)\n", to: "thumbgen.toml")
            try folder.write("<p><img src=\"../images/beach.jpg\" alt=\"no preset\"></p>\n", to: "elsewhere/site/blog/a.html")
            let unused = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.file("elsewhere"))
            #expect(unused.status == 0, "\(unused.stderr)")
        }
    }
}
