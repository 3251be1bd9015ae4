import Foundation
import Testing
@testable import Thumbgen

/// `thumbgen site DIR`, end to end on a small built site: what it rewrites, what it leaves
/// alone, that nothing else of a page moves, and that a second run changes nothing.
@Suite("End to end: thumbgen site")
struct SiteCommandTests {
    /// A smooth photo-like image (compresses as photos do).
    static func photo(width: Int, height: Int) -> RawImage {
        RawImage(width: width, height: height) { x, y in
            Colour(r: UInt8(x * 255 / width), g: UInt8(y * 255 / height), b: UInt8((x + y) * 127 / (width + height)))
        }
    }

    static let home = """
    <!DOCTYPE html>
    <html><head><meta charset="utf-8"><title>Home <img src="no"></title></head>
    <body>
    <!-- <img src="images/beach.jpg"> -->
    <h1>Hi</h1>
    <IMG SRC="/images/beach.jpg" alt="A beach &amp; sea" class=hero style="width:100%">
    <p><img src="images/logo.png" alt=logo/></p>
    <img src="images/icon.png" alt="icon">
    <img src="images/x.svg" alt="vector">
    <img src="images/anim.gif" alt="moving">
    <img src="https://example.com/a.jpg" alt="elsewhere">
    <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="inline">
    <img src="images/beach.jpg" data-thumbgen="skip" alt="marked">
    <picture><source srcset="images/beach.jpg"><img src="images/beach.jpg" alt="theirs"></picture>
    <img src="images/beach.jpg" srcset="images/beach.jpg 2000w" alt="own srcset">
    <img src="../outside.jpg" alt="outside">
    <script>var s = '<img src="images/beach.jpg">';</script>
    </body></html>

    """

    static let post = """
    <html><body><p>Post</p><img src="../../images/beach.jpg?v=2" width="600" alt="again"><img src="../../images/missing.jpg" alt="gone"></body></html>

    """

    /// Makes the built site under `folder`/site; its pages' original texts by path.
    static func makeSite(in folder: TemporaryDirectory) throws -> [String: String] {
        try folder.write(try photo(width: 2000, height: 1200).encoded(as: .jpeg, quality: 85), to: "site/images/beach.jpg")
        let logo = RawImage(width: 800, height: 600, alpha: true) { x, y in
            Colour(r: 200, g: UInt8(y % 256), b: UInt8(x % 256), a: UInt8((x / 4) % 256))
        }
        try folder.write(try logo.encoded(as: .png), to: "site/images/logo.png")
        try folder.write(try photo(width: 64, height: 64).encoded(as: .png), to: "site/images/icon.png")
        try folder.write("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>", to: "site/images/x.svg")
        let strip = RawImage(width: 300, height: 600) { _, y in Colour(r: UInt8(y % 256), g: 0, b: 0) }
        try folder.write(try strip.encodedAnimation(pageHeight: 200, as: .gif), to: "site/images/anim.gif")
        try folder.write(try photo(width: 400, height: 300).encoded(as: .jpeg), to: "outside.jpg")
        let pages = ["index.html": home, "blog/post/index.html": post]
        for (path, text) in pages { try folder.write(text, to: "site/" + path) }
        return pages
    }

    /// The page `rewritten` with each of thumbgen's pictures put back as the author's tag.
    static func undone(_ rewritten: [UInt8]) -> [UInt8] {
        var replacements: [(Range<Int>, [UInt8])] = []
        for found in HTMLScan.images(in: rewritten) {
            guard case .inPicture(let picture) = found.context, let marker = picture.marker, let range = picture.range
            else { continue }
            let element = SiteElement.authored(found, in: rewritten, replacing: range,
                                               added: Set(marker.split(separator: " ").map(String.init)), source: 0)
            replacements.append((range, element.tag))
        }
        return SitePlan.splice(rewritten, replacements)
    }

    static func read(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// A new built site (`makeSite`) and a first `thumbgen site` over it, with `arguments`.
    static func siteRun(_ arguments: [String] = []) async throws
        -> (folder: TemporaryDirectory, pages: [String: String], run: CLIResult)
    {
        let folder = try TemporaryDirectory("site")
        let pages = try makeSite(in: folder)
        let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"] + arguments, in: folder.url)
        return (folder, pages, run)
    }

    @Test("Rewrites the images a page shows, leaves the rest with reasons, and changes no other byte")
    func rewrite() async throws {
        let (folder, pages, run) = try await Self.siteRun()
        let site = folder.file("site")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains(
            "site: 2 pages (2 rewritten, 0 unchanged, 0 untouched); images: 3 rewritten, 0 failed, 10 left alone "
            + "(1 animated, 1 data_url, 1 external, 1 has_srcset, 1 in_picture, 1 marked_skip, 1 not_found, "
            + "1 outside_site, 1 small, 1 svg)"), "\(run.stderr)")
        for (path, original) in pages {
            let rewritten = try Self.read(site.appendingPathComponent(path))
            #expect(rewritten != Array(original.utf8), "\(path) unchanged")
            // Every byte outside the rewritten elements is the author's.
            #expect(String(decoding: Self.undone(rewritten), as: UTF8.self) == original, "\(path)")
        }
        let home = String(decoding: try Self.read(site.appendingPathComponent("index.html")), as: UTF8.self)
        // The hero: the first image of its page, fetched at once; its ladder stops at 1,920.
        let webp = (0..<5).map { "_thumbgen/images/beach-\([320, 640, 960, 1280, 1920][$0])." }
        for prefix in webp { #expect(home.contains(prefix), "\(prefix) missing") }
        #expect(home.contains("<IMG SRC=\"/images/beach.jpg\" alt=\"A beach &amp; sea\" class=hero style=\"width:100%\" srcset=\"_thumbgen/images/beach-320."))
        #expect(home.contains("sizes=\"100vw\" width=\"2000\" height=\"1200\" fetchpriority=\"high\"></picture>"))
        // The logo keeps its alpha: PNG fallback, WebP source; 800 px wide, its ladder ends there.
        #expect(home.contains("<img src=\"images/logo.png\" alt=logo/ srcset=\"_thumbgen/images/logo-320."))
        #expect(home.contains(".png 320w, _thumbgen/images/logo-640."))
        #expect(home.contains("width=\"800\" height=\"600\" loading=\"lazy\" decoding=\"async\"></picture>"))
        // The post names the same outputs from two folders down, and keeps its own width.
        let post = String(decoding: try Self.read(site.appendingPathComponent("blog/post/index.html")), as: UTF8.self)
        #expect(post.contains("srcset=\"../../_thumbgen/images/beach-320."))
        #expect(post.contains("width=\"600\" alt=\"again\" srcset="))
        #expect(post.contains("height=\"360\""))
        // Every candidate named is a file, relative to its page.
        for (path, text) in [("index.html", home), ("blog/post/index.html", post)] {
            let folderURL = site.appendingPathComponent(path).deletingLastPathComponent()
            let urls = text.split(separator: "\"").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.contains("_thumbgen/") }
                .map { String($0.split(separator: " ")[0]) }
            #expect(urls.count >= 10)
            for url in urls {
                #expect(FileManager.default.fileExists(atPath: folderURL.appendingPathComponent(url).path), "\(path): \(url)")
            }
        }
    }

    @Test("A second run changes no byte and touches no page; a rebuilt page comes out the same from the cache")
    func idempotent() async throws {
        let (folder, pages, first) = try await Self.siteRun()
        let site = folder.file("site")
        #expect(first.status == 0, "\(first.stderr)")
        var before: [String: ([UInt8], Date)] = [:]
        for path in pages.keys {
            let url = site.appendingPathComponent(path)
            let stamp = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
            before[path] = (try Self.read(url), try #require(stamp))
        }
        let second = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("site: 2 pages (0 rewritten, 2 unchanged, 0 untouched)"), "\(second.stderr)")
        #expect(second.stderr.contains("0 written"), "\(second.stderr)")
        for (path, (bytes, stamp)) in before {
            let url = site.appendingPathComponent(path)
            #expect(try Self.read(url) == bytes, "\(path) changed")
            #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date == stamp)
        }
        // The generator wrote its plain page again.
        try folder.write(pages["index.html"]!, to: "site/index.html")
        let rebuilt = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.url)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("0 written"), "\(rebuilt.stderr)")
        #expect(try Self.read(site.appendingPathComponent("index.html")) == before["index.html"]!.0)
    }

    @Test("A page that is not UTF-8 is left untouched and named, and the run says so in its status")
    func notUTF8() async throws {
        let folder = try TemporaryDirectory("site")
        _ = try Self.makeSite(in: folder)
        let latin1 = Array("<html><body><p>caf".utf8) + [0xE9] + Array("</p><img src=\"images/beach.jpg\"></body></html>".utf8)
        try folder.write(Data(latin1), to: "site/old.html")
        let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.url)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("old.html: left untouched: it is not UTF-8"), "\(run.stderr)")
        #expect(try Self.read(folder.file("site/old.html")) == latin1)
        #expect(run.stderr.contains("(2 rewritten, 0 unchanged, 1 untouched)"), "\(run.stderr)")
    }

    @Test("The placeholder is the <img>'s background unless the author styled it, the image has alpha, or --placeholders none")
    func placeholders() async throws {
        let (folder, _, run) = try await Self.siteRun()
        #expect(run.status == 0, "\(run.stderr)")
        let post = String(decoding: try Self.read(folder.file("site/blog/post/index.html")), as: UTF8.self)
        #expect(post.contains("height=\"360\" style=\"background:#"), "\(post)")
        #expect(post.contains("<picture data-thumbgen=\"srcset sizes height style fetchpriority\">"), "\(post)")
        let home = String(decoding: try Self.read(folder.file("site/index.html")), as: UTF8.self)
        // The hero has a style of its own; the logo has alpha.
        #expect(home.components(separatedBy: "background:").count == 1, "\(home)")
        let none = try await CLIRunner.run(["site", "site", "--cache-dir", "cache", "--placeholders", "none"], in: folder.url)
        #expect(none.status == 0, "\(none.stderr)")
        let plain = String(decoding: try Self.read(folder.file("site/blog/post/index.html")), as: UTF8.self)
        #expect(!plain.contains("background:"), "\(plain)")
        #expect(plain.contains("<picture data-thumbgen=\"srcset sizes height fetchpriority\">"), "\(plain)")
    }

    @Test("--prune removes the outputs of an image no page shows any more, and nothing else")
    func prune() async throws {
        let (folder, pages, run) = try await Self.siteRun(["--prune"])
        #expect(run.status == 0, "\(run.stderr)")
        let out = folder.file("site/_thumbgen/images")
        let before = TemporaryDirectory.files(under: out)
        #expect(before.filter { $0.hasPrefix("logo-") }.count == 6, "\(before)")
        // The generator built the home page again, without the logo.
        let withoutLogo = pages["index.html"]!.replacingOccurrences(of: "<p><img src=\"images/logo.png\" alt=logo/></p>\n", with: "")
        try folder.write(withoutLogo, to: "site/index.html")
        try folder.write("kept\n", to: "site/_thumbgen/images/notes.txt")
        let second = try await CLIRunner.run(["site", "site", "--cache-dir", "cache", "--prune"], in: folder.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains(", 6 pruned in"), "\(second.stderr)")
        let after = TemporaryDirectory.files(under: out)
        #expect(Set(after) == Set(before.filter { !$0.hasPrefix("logo-") } + ["notes.txt"]), "\(after)")
        // A page left untouched: nothing is pruned.
        try folder.write(Data(Array("<p>caf".utf8) + [0xE9]), to: "site/old.html")
        try folder.write(pages["index.html"]!.replacingOccurrences(of: "<IMG SRC=\"/images/beach.jpg\"", with: "<IMG SRC=\"/images/gone.jpg\""),
                         to: "site/index.html")
        let third = try await CLIRunner.run(["site", "site", "--cache-dir", "cache", "--prune"], in: folder.url)
        #expect(third.status == 1, "\(third.stderr)")
        #expect(third.stderr.contains("not pruning: 1 pages were left untouched"), "\(third.stderr)")
        // (The page shows the logo again: its outputs come back from the cache.)
        #expect(Set(after).isSubset(of: Set(TemporaryDirectory.files(under: out))))
    }

    /// A site of one page, `page`, and one 800×500 image, `images/a.jpg`.
    static func onePage(_ page: String) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("site")
        try folder.write(try photo(width: 800, height: 500).encoded(as: .jpeg), to: "site/images/a.jpg")
        try folder.write(page, to: "site/index.html")
        return folder
    }

    @Test("--base-url: the site's own absolute URLs and its folder's root-relative paths are its files")
    func baseURL() async throws {
        let folder = try Self.onePage("<p><img src=\"https://example.org/blog/images/a.jpg\" alt=\"1\">"
            + "<img src=\"/blog/images/a.jpg\" alt=\"2\"><img src=\"https://elsewhere.org/blog/images/a.jpg\" alt=\"3\"></p>\n")
        let run = try await CLIRunner.run(["site", "site", "--no-cache", "--base-url", "https://example.org/blog/"],
                                          in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("images: 2 rewritten, 0 failed, 1 left alone (1 external)"), "\(run.stderr)")
    }

    @Test("--formats none: the <img> alone gains its srcset and the rest, marked; a second run changes nothing")
    func noModernFormat() async throws {
        let folder = try Self.onePage("<p><img src=\"images/a.jpg\" alt=\"a\"/></p>\n")
        let arguments = ["site", "site", "--cache-dir", "cache", "--formats", "none", "--placeholders", "none"]
        let first = try await CLIRunner.run(arguments, in: folder.url)
        #expect(first.status == 0, "\(first.stderr)")
        let rewritten = try Self.read(folder.file("site/index.html"))
        let text = String(decoding: rewritten, as: UTF8.self)
        #expect(!text.contains("<picture"), "\(text)")
        #expect(text.hasPrefix("<p><img src=\"images/a.jpg\" alt=\"a\" srcset=\"_thumbgen/images/a-320."), "\(text)")
        #expect(text.hasSuffix(" data-thumbgen=\"srcset sizes width height fetchpriority\"/></p>\n"), "\(text)")
        let second = try await CLIRunner.run(arguments, in: folder.url)
        #expect(second.status == 0 && second.stderr.contains("(0 rewritten, 1 unchanged, 0 untouched)"), "\(second.stderr)")
        #expect(try Self.read(folder.file("site/index.html")) == rewritten)
        // Read back as the author's tag.
        let found = try #require(HTMLScan.images(in: rewritten).first)
        let element = SiteElement.authored(found, in: rewritten, replacing: found.tag,
                                           added: ["srcset", "sizes", "width", "height", "fetchpriority", "data-thumbgen"], source: 0)
        #expect(String(decoding: element.tag, as: UTF8.self) == "<img src=\"images/a.jpg\" alt=\"a\"/>")
    }

    @Test("A page the generator writes again between the scan and the rewrite is left as it now is, and named")
    func changedMeanwhile() throws {
        let folder = try Self.onePage("<p><img src=\"images/a.jpg\" alt=\"a\"></p>\n")
        let plan = try SitePlan(root: folder.file("site").path, settings: SiteSettings())
        // Not changed: read again, and its element fails for want of outputs (none were made).
        let untouched = try plan.rewrite(results: [])
        #expect(untouched.changedMeanwhile.isEmpty && untouched.elementsFailed == 1)
        let newer = "<p>Rebuilt.</p><p><img src=\"images/a.jpg\" alt=\"a\"></p>\n"
        try folder.write(newer, to: "site/index.html")
        let changed = try plan.rewrite(results: [])
        #expect(changed.changedMeanwhile == ["index.html"])
        #expect(try String(contentsOf: folder.file("site/index.html"), encoding: .utf8) == newer)
    }

    @Test("--dry-run lists what it would rewrite and writes nothing")
    func dryRun() async throws {
        let (folder, pages, run) = try await Self.siteRun(["--dry-run"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("would rewrite index.html:6 <img src=\"/images/beach.jpg\">"), "\(run.stderr)")
        #expect(run.stderr.contains("would rewrite blog/post/index.html:1 <img src=\"../../images/beach.jpg?v=2\">"))
        for (path, text) in pages {
            #expect(String(decoding: try Self.read(folder.file("site/" + path)), as: UTF8.self) == text)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("site/_thumbgen").path))
    }
}

/// `<base href>`: a page's relative URLs, its images' and thumbgen's own, resolve against it.
@Suite("End to end: thumbgen site and <base href>")
struct SiteBaseTests {
    @Test("A base inside the site moves where relative URLs resolve from, for the src and the srcset; a base elsewhere leaves the page's images alone")
    func base() async throws {
        let folder = try TemporaryDirectory("site-base")
        try folder.write(try SiteCommandTests.photo(width: 800, height: 500).encoded(as: .jpeg), to: "site/images/a.jpg")
        try folder.write("<head><base href=\"/\"></head><img src=\"images/a.jpg\" alt=\"root\">\n", to: "site/blog/post/index.html")
        try folder.write("<head><base href=\"../\"></head><img src=\"images/a.jpg\" alt=\"up\">\n", to: "site/docs/index.html")
        try folder.write("<head><base href=\"https://cdn.example.com/\"></head><img src=\"images/a.jpg\">\n", to: "site/cdn.html")
        let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("images: 2 rewritten, 0 failed, 1 left alone (1 base_elsewhere)"), "\(run.stderr)")
        for page in ["blog/post/index.html", "docs/index.html"] {
            let text = try String(contentsOf: folder.file("site/" + page), encoding: .utf8)
            // Relative to the base, which is the site's root for both.
            #expect(text.contains("srcset=\"_thumbgen/images/a-320."), "\(page): \(text)")
            let first = try SitePresetTests.candidate(text, "_thumbgen/")
            #expect(FileManager.default.fileExists(atPath: folder.file("site/" + first).path), "\(first)")
        }
        #expect(try String(contentsOf: folder.file("site/cdn.html"), encoding: .utf8)
                == "<head><base href=\"https://cdn.example.com/\"></head><img src=\"images/a.jpg\">\n")
    }
}
