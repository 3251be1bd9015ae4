import Foundation
import Testing

/// The README's site recipes with the real generators: Debian's `hugo` and MkDocs from PyPI
/// build small sites in the test, and `thumbgen site` runs over what they wrote.
@Suite("Docs: the site recipes with real generators")
struct SiteRecipesTests {
    /// Whether `tool` is on PATH.
    static func has(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    /// The images every site shows: a photo, a logo with alpha, an icon too small to rewrite.
    static func images(into folder: TemporaryDirectory, under path: String) throws {
        try folder.write(try SiteCommandTests.photo(width: 2000, height: 1200).encoded(as: .jpeg, quality: 85),
                         to: "\(path)/beach.jpg")
        let logo = RawImage(width: 800, height: 600, alpha: true) { x, y in
            Colour(r: 200, g: UInt8(y % 256), b: UInt8(x % 256), a: UInt8((x / 4) % 256))
        }
        try folder.write(try logo.encoded(as: .png), to: "\(path)/logo.png")
        try folder.write(try SiteCommandTests.photo(width: 64, height: 64).encoded(as: .png), to: "\(path)/icon.png")
    }

    /// Every built page of `built` (relative paths) against its rewritten form in `rewritten`:
    /// the pages that changed, after checking that nothing but thumbgen's pictures did.
    static func compare(built: URL, rewritten: URL) throws -> [String] {
        var changed: [String] = []
        for page in TemporaryDirectory.files(under: built) where page.hasSuffix(".html") {
            let before = [UInt8](try Data(contentsOf: built.appendingPathComponent(page)))
            let after = [UInt8](try Data(contentsOf: rewritten.appendingPathComponent(page)))
            if before != after { changed.append(page) }
            #expect(SiteCommandTests.undone(after) == before, "\(page): bytes outside the pictures changed")
        }
        return changed.sorted()
    }

    @Test("Hugo: the built pages' images rewritten, nothing else; a rebuild gives the same pages from the cache",
          .enabled(if: has("hugo"), "needs hugo (scripts/setup --tests)"))
    func hugo() async throws {
        let site = try TemporaryDirectory("hugo")
        try site.write("""
            baseURL = "https://example.org/"
            title = "Beaches"
            disableKinds = ["taxonomy", "term", "RSS", "sitemap"]
            """, to: "hugo.toml")
        try site.write("""
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
            <body>{{ block "main" . }}{{ end }}</body></html>
            """, to: "layouts/_default/baseof.html")
        try site.write("{{ define \"main\" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}\n", to: "layouts/_default/single.html")
        try site.write("""
            {{ define "main" }}<img src="/images/logo.png" alt="Logo">
            {{ range .Site.RegularPages }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}{{ end }}
            """, to: "layouts/index.html")
        try site.write("""
            ---
            title: The beach
            ---
            ![The beach at noon](/images/beach.jpg)

            An icon: ![icon](/images/icon.png "A small one")
            """, to: "content/posts/beach.md")
        try Self.images(into: site, under: "static/images")
        let script = try RecipesTests.recipe("hugo")
        let first = try await RecipesTests.run(script, in: site)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("images: 2 rewritten, 0 failed, 1 left alone (1 small)"), "\(first.output)")
        // The same site built again, untouched, beside it.
        let plain = try await RecipesTests.run("set -e\nhugo --quiet --destination plain\n", in: site, name: "plain.sh")
        #expect(plain.status == 0, "\(plain.output)")
        let changed = try Self.compare(built: site.file("plain"), rewritten: site.file("public"))
        #expect(changed == ["index.html", "posts/beach/index.html"], "\(changed)")
        let post = try String(contentsOf: site.file("public/posts/beach/index.html"), encoding: .utf8)
        #expect(post.contains("<picture data-thumbgen=\"srcset sizes width height style fetchpriority\"><source type=\"image/webp\" srcset=\"../../_thumbgen/images/beach-320."), "\(post)")
        #expect(post.contains("alt=\"The beach at noon\""))
        // Its placeholder behind it while it loads: the dominant colour and the blurred preview.
        #expect(post.contains(" style=\"background:#"), "\(post)")
        #expect(post.contains("url(data:image/webp;base64,"), "\(post)")
        let rewritten = try Data(contentsOf: site.file("public/posts/beach/index.html"))
        // Hugo writes its plain pages again; thumbgen makes the same ones from the cache.
        let second = try await RecipesTests.run(script, in: site)
        #expect(second.status == 0, "\(second.output)")
        #expect(second.output.contains(" 0 written, "), "\(second.output)")
        #expect(try Data(contentsOf: site.file("public/posts/beach/index.html")) == rewritten)
    }

    @Test("MkDocs: pages in folders of their own, relative image paths; a rebuild gives the same pages from the cache",
          .enabled(if: has("mkdocs"), "needs mkdocs (scripts/setup --tests)"))
    func mkdocs() async throws {
        let site = try TemporaryDirectory("mkdocs")
        try site.write("site_name: Beaches\nnav:\n  - index.md\n  - trips/summer.md\n", to: "mkdocs.yml")
        try site.write("# Beaches\n\n![The logo](img/logo.png)\n", to: "docs/index.md")
        try site.write("# Summer\n\n![The beach at noon](../img/beach.jpg)\n\n![icon](../img/icon.png)\n",
                       to: "docs/trips/summer.md")
        try Self.images(into: site, under: "docs/img")
        let script = try RecipesTests.recipe("mkdocs")
        // MkDocs stamps its build date in the pages: the same date for every build here.
        let reproducible = ["SOURCE_DATE_EPOCH": "1700000000"]
        let first = try await RecipesTests.run(script, in: site, environment: reproducible)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("images: 2 rewritten, 0 failed"), "\(first.output)")
        let plain = try await RecipesTests.run("set -e\nmkdocs build --quiet --site-dir plain\n", in: site, name: "plain.sh",
                                               environment: reproducible)
        #expect(plain.status == 0, "\(plain.output)")
        let changed = try Self.compare(built: site.file("plain"), rewritten: site.file("site"))
        #expect(changed == ["index.html", "trips/summer/index.html"], "\(changed)")
        let summer = try String(contentsOf: site.file("site/trips/summer/index.html"), encoding: .utf8)
        #expect(summer.contains("srcset=\"../../_thumbgen/img/beach-320."), "\(summer)")
        let rewritten = try Data(contentsOf: site.file("site/trips/summer/index.html"))
        // MkDocs empties its folder before it builds: the outputs come back from the cache,
        // none rendered.
        let second = try await RecipesTests.run(script, in: site, environment: reproducible)
        #expect(second.status == 0, "\(second.output)")
        #expect(second.output.contains("cache: 16 hit, 0 revalidated, 0 miss"), "\(second.output)")
        #expect(try Data(contentsOf: site.file("site/trips/summer/index.html")) == rewritten)
    }
}
