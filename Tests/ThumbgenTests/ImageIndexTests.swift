import Foundation
import Testing
@testable import Thumbgen

/// `--index`: each source's outputs by format with a ready `srcset`, valid against
/// `docs/index.schema.json`, and srcset strings a real browser picks from as expected.
@Suite("Results: the image index for web pages")
struct ImageIndexTests {
    static let schema = TestPaths.packageRoot.appendingPathComponent("docs/index.schema.json")
    static let widths = ["--size", "320,640,1280", "--format", "webp,jpeg"]

    /// A folder with a wide photo, a smaller one under a name a srcset cannot hold as it is,
    /// and a JPEG that fails to decode; rendered at three widths in two formats.
    static func render(_ extra: [String] = []) async throws -> (Workspace, CLIResult) {
        let space = try Workspace("index")
        try space.fixture(.quadrants(width: 1600, height: 1000), "photos/hero.png")
        try space.fixture(.quadrants(width: 800, height: 500, [.blue, .red, .green, .yellow]), "photos/sub dir/a,b.png")
        try space.folder.write(FixtureBytes.truncated(try RawImage.quadrants(width: 64, height: 64).encoded(as: .jpeg)),
                               to: "photos/zz broken.jpg")
        let run = try await CLIRunner.run(["render", "photos", "--out", "out", "--index", "site/index.json",
                                           "--report", "report.json"] + widths + extra,
                                          in: space.folder.url, cacheDirectory: space.cache)
        return (space, run)
    }

    /// The index's `formats` of the entry for `src`.
    static func formats(_ index: [String: Any], _ src: String) -> [String: [String: Any]] {
        let sources = index["sources"] as? [[String: Any]] ?? []
        return sources.first { $0["src"] as? String == src }?["formats"] as? [String: [String: Any]] ?? [:]
    }

    @Test("The index groups each source's outputs by format, with srcset, and validates against its schema",
          .enabled(if: ReportSchemaTests.hasValidator, "needs python3-jsonschema (scripts/setup installs it)"))
    func indexValidates() async throws {
        let (space, run) = try await Self.render()
        #expect(run.status == 1, "\(run.stderr)")  // the broken JPEG
        let url = space.folder.file("site/index.json")
        let problems = try #require(try ReportSchemaTests.violations(url, schema: Self.schema))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let index = try ReportSchemaTests.json(url)
        let sources = try #require(index["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["src"] as? String } == ["photos/hero.png", "photos/sub dir/a,b.png"])
        let hero = Self.formats(index, "photos/hero.png")
        #expect(hero["webp"]?["srcset"] as? String == "hero-320x200.webp 320w, hero-640x400.webp 640w, hero-1280x800.webp 1280w")
        #expect(hero["jpeg"]?["type"] as? String == "image/jpeg")
        let small = Self.formats(index, "photos/sub dir/a,b.png")
        // No upscale: 1280 gives the source's own 800; the space and the comma are encoded.
        #expect(small["jpeg"]?["srcset"] as? String
                == "sub%20dir/a%2Cb-320x200.jpg 320w, sub%20dir/a%2Cb-640x400.jpg 640w, sub%20dir/a%2Cb-800x500.jpg 800w")
        // Each output is the report's, byte for byte.
        let report = try Report.read(space.folder.file("report.json"))
        let outputs = [hero, small].flatMap { $0.values }.flatMap { $0["outputs"] as? [[String: Any]] ?? [] }
        #expect(outputs.count == 12)
        for output in outputs {
            let row = try #require(report.rows.first { $0.out == output["path"] as? String })
            #expect(row.width == output["width"] as? Int && row.height == output["height"] as? Int
                    && row.bytes == output["bytes"] as? Int)
        }
        // Put in place whole: nothing else in its folder.
        #expect(space.folder.files(under: "site") == ["index.json"])
    }

    /// The index's `html` of the entry for `src`.
    static func html(_ index: [String: Any], _ src: String) -> String? {
        let sources = index["sources"] as? [[String: Any]] ?? []
        return sources.first { $0["src"] as? String == src }?["html"] as? String
    }

    @Test("Each source has a ready <picture>: a <source> per modern format, best first, an <img> of the fallback with its widest output's box; --sizes says sizes")
    func pictureMarkup() async throws {
        let (space, run) = try await Self.render(["--sizes", "(min-width: 800px) 50vw, 100vw", "--placeholders", "none"])
        #expect(run.status == 1, "\(run.stderr)")
        let index = try ReportSchemaTests.json(space.folder.file("site/index.json"))
        let sizes = "(min-width: 800px) 50vw, 100vw"
        #expect(Self.html(index, "photos/hero.png") == """
            <picture><source type="image/webp" srcset="hero-320x200.webp 320w, hero-640x400.webp 640w, \
            hero-1280x800.webp 1280w" sizes="\(sizes)"><img src="hero-1280x800.jpg" srcset="hero-320x200.jpg 320w, \
            hero-640x400.jpg 640w, hero-1280x800.jpg 1280w" sizes="\(sizes)" width="1280" height="800" alt="" \
            loading="lazy" decoding="async"></picture>
            """)
        // With the default placeholders, the <img> is drawn in the dominant colour under the LQIP
        // until it loads.
        let (drawnSpace, withPlaceholders) = try await Self.render()
        #expect(withPlaceholders.status == 1)
        let drawn = try #require(Self.html(try ReportSchemaTests.json(drawnSpace.folder.file("site/index.json")), "photos/hero.png"))
        #expect(drawn.contains(" style=\"background:#"), "\(drawn)")
        #expect(drawn.contains("url(data:image/webp;base64,") && drawn.contains(") center/cover no-repeat\"></picture>"), "\(drawn)")
        // No upscale: the widest of the small source is its own 800.
        #expect(Self.html(index, "photos/sub dir/a,b.png")?.contains(
            "<img src=\"sub%20dir/a%2Cb-800x500.jpg\"") == true)
        let refused = try await CLIRunner.run(["render", "photos", "--out", "out", "--sizes", "50vw"], in: space.folder.url)
        #expect(refused.status == 2 && refused.stderr.contains("--sizes"), "\(refused.stderr)")
    }

    /// A folder with one photo, rendered as a 64×64 avatar at densities 1 and 2 in WebP and JPEG.
    static func renderAvatar(_ extra: [String] = []) async throws -> (Workspace, CLIResult) {
        let space = try Workspace("index-density")
        try space.fixture(.quadrants(width: 400, height: 300), "photos/avatar.png")
        let run = try await CLIRunner.run(["render", "photos", "--out", "out", "--index", "site/index.json",
                                           "--index-url-prefix", "out/", "--size", "64x64", "--fit", "cover",
                                           "--density", "1,2", "--format", "webp,jpeg"] + extra,
                                          in: space.folder.url, cacheDirectory: space.cache)
        return (space, run)
    }

    @Test("--density 1,2 makes a row per density of the one box; srcsets in x descriptors; the <picture> at the density-1 box, without sizes; valid against the schema")
    func densities() async throws {
        let (space, run) = try await Self.renderAvatar(["--placeholders", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(space.outputFiles) == ["avatar-64x64.webp", "avatar-128x128.webp", "avatar-64x64.jpg", "avatar-128x128.jpg"])
        let url = space.folder.file("site/index.json")
        let index = try ReportSchemaTests.json(url)
        #expect(Self.formats(index, "photos/avatar.png")["webp"]?["srcset"] as? String
                == "out/avatar-64x64.webp 1x, out/avatar-128x128.webp 2x")
        #expect(Self.html(index, "photos/avatar.png") == """
            <picture><source type="image/webp" srcset="out/avatar-64x64.webp 1x, out/avatar-128x128.webp 2x">\
            <img src="out/avatar-64x64.jpg" srcset="out/avatar-64x64.jpg 1x, out/avatar-128x128.jpg 2x" width="64" \
            height="64" alt="" loading="lazy" decoding="async"></picture>
            """)
        if ReportSchemaTests.hasValidator {
            let problems = try #require(try ReportSchemaTests.violations(url, schema: Self.schema))
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
        #expect(ImageIndex.density(1.5625) == "1.56x" && ImageIndex.density(2) == "2x" && ImageIndex.density(1.5) == "1.5x")
        for arguments in [["--size", "64,128", "--density", "1,2"], ["--size", "64", "--density", "0,2"],
                          ["--size", "64", "--density", "2,2"]] {
            let refused = try await CLIRunner.run(["render", "photos", "--out", "out"] + arguments, in: space.folder.url)
            #expect(refused.status == 2 && refused.stderr.contains("--density"), "\(arguments): \(refused.stderr)")
            if arguments[1].contains(",") {
                // A list of sizes: the refusal says why, and what to give instead.
                #expect(refused.stderr.contains("without --density (w descriptors)"), "\(refused.stderr)")
            }
        }
        let manifest = try space.folder.write("src\nphotos/avatar.png\n", to: "m.csv")
        let refused = try await CLIRunner.run(["render", manifest.path, "--out", "out", "--size", "64", "--density", "1,2"],
                                              in: space.folder.url)
        #expect(refused.status == 2 && refused.stderr.contains("--density"), "\(refused.stderr)")
    }

    @Test("Chromium shows the density-1 avatar at DPR 1 and the density-2 one at DPR 2, from WebP and from the JPEG fallback",
          .enabled(if: Browser.isAvailable, "needs chromium (scripts/setup installs it)"))
    func browserShowsDensities() async throws {
        let (space, run) = try await Self.renderAvatar()
        #expect(run.status == 0, "\(run.stderr)")
        let index = try ReportSchemaTests.json(space.folder.file("site/index.json"))
        let picture = try #require(Self.html(index, "photos/avatar.png"))
        let page = try space.folder.write(Self.picturePage(picture), to: "avatar.html")
        for (ratio, expected) in [(1, "avatar-64x64"), (2, "avatar-128x128")] {
            let text = try await Self.pictureCheck(page, viewport: 400, ratio: ratio)
            #expect(text.contains("modern \(expected).webp loaded"), "×\(ratio): \(text)")
            #expect(text.contains("fallback \(expected).jpg loaded"), "×\(ratio): \(text)")
        }
    }

    @Test("The markup: formats in the browsers' order, every attribute escaped, nothing for TIFF alone")
    func markupRules() {
        func group(_ format: String, _ widths: [Int], prefix: String = "") -> ImageIndex.Format {
            let outputs = widths.map { ImageIndex.Output(width: $0, height: $0 / 2, bytes: 1, path: "a-\($0).\(format)",
                                                          url: prefix + "a-\($0).\(format)") }
            return ImageIndex.Format(type: ImageIndex.mimeType(format),
                                     srcset: outputs.map { "\($0.url) \($0.width)w" }.joined(separator: ", "), outputs: outputs)
        }
        let all = ["avif": group("avif", [100]), "webp": group("webp", [100]), "png": group("png", [100, 200]),
                   "jxl": group("jxl", [100])]
        let html = PictureMarkup.html(formats: all, sizes: "100vw") ?? ""
        let order = ["image/avif", "image/jxl", "image/webp"].compactMap { html.range(of: $0)?.lowerBound }
        #expect(order.count == 3 && order == order.sorted(), "\(html)")
        #expect(html.contains("<img src=\"a-200.png\"") && html.contains("width=\"200\" height=\"100\""), "\(html)")
        // A modern format alone is its own fallback.
        #expect(PictureMarkup.html(formats: ["webp": group("webp", [50])], sizes: "100vw")
                == "<picture><img src=\"a-50.webp\" srcset=\"a-50.webp 50w\" sizes=\"100vw\" width=\"50\" height=\"25\" "
                + "alt=\"\" loading=\"lazy\" decoding=\"async\"></picture>")
        #expect(PictureMarkup.html(formats: ["tiff": group("tiff", [50])], sizes: "100vw") == nil)
        let hostile = PictureMarkup.html(formats: ["jpeg": group("jpeg", [10], prefix: "/?a=1&b=\"'<x>")],
                                         sizes: "calc(100vw - \"2em\")") ?? ""
        #expect(hostile.contains("src=\"/?a=1&amp;b=&quot;&#39;&lt;x&gt;a-10.jpeg\""), "\(hostile)")
        #expect(hostile.contains("sizes=\"calc(100vw - &quot;2em&quot;)\""), "\(hostile)")
    }

    @Test("--index-url-prefix goes before every url; --index is refused where nothing is written")
    func prefixAndRefusals() async throws {
        let (space, run) = try await Self.render(["--index-url-prefix", "https://cdn.example/t/"])
        #expect(run.status == 1)
        let index = try ReportSchemaTests.json(space.folder.file("site/index.json"))
        let webp = Self.formats(index, "photos/hero.png")["webp"]
        #expect((webp?["srcset"] as? String)?.hasPrefix("https://cdn.example/t/hero-320x200.webp 320w, https://cdn.example/t/") == true)
        for arguments in [["render", "photos", "--out", "out", "--index", "i.json", "--dry-run"],
                          ["warm", "photos", "--index", "i.json"],
                          ["render", "photos", "--out", "out", "--index", "i.json", "--index-url-prefix", "/a b/"]] {
            let refused = try await CLIRunner.run(arguments, in: space.folder.url)
            #expect(refused.status == 2, "\(arguments): \(refused.stderr)")
        }
    }

    /// A page showing one `<img srcset sizes="100vw">` per format from the index at
    /// `index`, which reports the candidate each loaded into `<pre id="tg-check">`.
    static func page(_ index: [String: Any]) throws -> String {
        let hero = formats(index, "photos/hero.png")
        var images = ""
        for format in ["jpeg", "webp"] {
            let srcset = try #require(hero[format]?["srcset"] as? String)
            images += "<img id=\"\(format)\" srcset=\"\(srcset)\" sizes=\"100vw\" alt=\"\">\n"
        }
        return """
            <!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <style>body { margin: 0 } img { display: block; width: 100vw }</style></head><body>
            \(images)<pre id="tg-check"></pre>
            <script>window.addEventListener("load", function () {
              var lines = [];
              document.querySelectorAll("img").forEach(function (img) {
                var loaded = img.complete && img.naturalWidth > 0 ? "loaded" : "missing";
                lines.push(img.id + " " + img.currentSrc.split("/").pop() + " " + loaded);
              });
              lines.push("dpr " + window.devicePixelRatio + " width " + window.innerWidth);
              document.getElementById("tg-check").textContent = lines.join("\\n");
            });</script></body></html>
            """
    }

    /// A page showing `picture` twice: as it is, and with WebP's type made one no browser knows
    /// (so that it falls back to the <img>); it reports what each loaded into `<pre id="tg-check">`.
    /// `width` is the images' CSS width (their own without one).
    static func picturePage(_ picture: String, width: String? = nil) -> String {
        picturePage(["modern": picture, "fallback": picture.replacingOccurrences(of: "image/webp", with: "image/x-none")],
                    order: ["modern", "fallback"], width: width)
    }

    /// A page showing each of `pictures` in a `<div>` of its name, in `order`; it reports
    /// `NAME FILE loaded|missing` for each into `<pre id="tg-check">`.
    static func picturePage(_ pictures: [String: String], order: [String], width: String? = nil) -> String {
        let style = width.map { "img { display: block; width: \($0); height: auto }" } ?? "img { display: block }"
        let divs = order.map { "<div id=\"\($0)\">\(pictures[$0] ?? "")</div>" }.joined()
        return """
            <!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <style>body { margin: 0 } \(style)</style></head><body>
            \(divs)<pre id="tg-check"></pre>
            <script>window.addEventListener("load", function () {
              var lines = [];
              document.querySelectorAll("div").forEach(function (div) {
                var img = div.querySelector("img");
                var loaded = img.complete && img.naturalWidth > 0 ? "loaded" : "missing";
                lines.push(div.id + " " + img.currentSrc.split("/").pop() + " " + loaded);
              });
              document.getElementById("tg-check").textContent = lines.join("\\n");
            });</script></body></html>
            """
    }

    /// What `page` reports in Chromium at `viewport` CSS pixels wide and device pixel ratio `ratio`.
    static func pictureCheck(_ page: URL, viewport: Int, ratio: Int) async throws -> String {
        var text = ""
        for budget in [5_000, 20_000] where text.isEmpty || text.contains("missing") {
            let dump = try await Browser.run(["--virtual-time-budget=\(budget)", "--window-size=\(viewport),900",
                                              "--force-device-scale-factor=\(ratio)", "--dump-dom", page.absoluteString])
            text = Browser.preText(id: "tg-check", in: dump.stdout) ?? ""
        }
        return text
    }

    @Test("Chromium shows the index's <picture> from the expected format and candidate at two widths and ratios; without WebP, from the JPEG fallback",
          .enabled(if: Browser.isAvailable, "needs chromium (scripts/setup installs it)"))
    func browserShowsPicture() async throws {
        let (space, run) = try await Self.render(["--index-url-prefix", "out/"])
        #expect(run.status == 1, "\(run.stderr)")
        let index = try ReportSchemaTests.json(space.folder.file("site/index.json"))
        let picture = try #require(Self.html(index, "photos/hero.png"))
        let page = try space.folder.write(Self.picturePage(picture, width: "100vw"), to: "picture.html")
        for (viewport, ratio, expected) in [(500, 1, "hero-640x400"), (1000, 1, "hero-1280x800"), (500, 2, "hero-1280x800")] {
            let text = try await Self.pictureCheck(page, viewport: viewport, ratio: ratio)
            #expect(text.contains("modern \(expected).webp loaded"), "\(viewport)×\(ratio): \(text)")
            #expect(text.contains("fallback \(expected).jpg loaded"), "\(viewport)×\(ratio): \(text)")
        }
    }

    @Test("Every format Chromium shows: AVIF first, WebP where AVIF is unknown, the JPEG <img> where both are; the expected candidate at two widths and ratios",
          .enabled(if: Browser.isAvailable, "needs chromium (scripts/setup installs it)"))
    func browserShowsEachFormat() async throws {
        let space = try Workspace("index-avif")
        try space.fixture(.quadrants(width: 1600, height: 1000), "photos/hero.png")
        let run = try await CLIRunner.run(["render", "photos", "--out", "out", "--index", "site/index.json",
                                           "--index-url-prefix", "out/", "--size", "320,640,1280",
                                           "--format", "avif,webp,jpeg"],
                                          in: space.folder.url, cacheDirectory: space.cache)
        #expect(run.status == 0, "\(run.stderr)")
        let index = try ReportSchemaTests.json(space.folder.file("site/index.json"))
        let picture = try #require(Self.html(index, "photos/hero.png"))
        // Three copies: as written; with AVIF's type one no browser knows; with WebP's too.
        let noAVIF = picture.replacingOccurrences(of: "image/avif", with: "image/x-none")
        let neither = noAVIF.replacingOccurrences(of: "image/webp", with: "image/x-none")
        let page = try space.folder.write(Self.picturePage(["avif": picture, "webp": noAVIF, "jpeg": neither],
                                                           order: ["avif", "webp", "jpeg"], width: "100vw"),
                                          to: "formats.html")
        for (viewport, ratio, expected) in [(500, 1, "hero-640x400"), (1000, 1, "hero-1280x800"), (500, 2, "hero-1280x800")] {
            let text = try await Self.pictureCheck(page, viewport: viewport, ratio: ratio)
            for format in ["avif", "webp"] {
                #expect(text.contains("\(format) \(expected).\(format) loaded"), "\(viewport)×\(ratio): \(text)")
            }
            #expect(text.contains("jpeg \(expected).jpg loaded"), "\(viewport)×\(ratio): \(text)")
        }
    }

    @Test("Chromium picks the expected srcset candidate at two viewport widths (device pixel ratio pinned: 1, then 2)",
          .enabled(if: Browser.isAvailable, "needs chromium (scripts/setup installs it)"))
    func browserPicksCandidates() async throws {
        // The page sits beside --out, so the index's paths get `out/` in front.
        let (space, run) = try await Self.render(["--index-url-prefix", "out/"])
        #expect(run.status == 1, "\(run.stderr)")
        let index = try ReportSchemaTests.json(space.folder.file("site/index.json"))
        let page = try space.folder.write(try Self.page(index), to: "page.html")
        // 500 CSS px at ratio 1 needs 500 image px: 640w is the narrowest that covers it;
        // 1000 needs 1280w, and so does 500 at ratio 2, which shows why the ratio is pinned.
        for (viewport, ratio, expected) in [(500, 1, "hero-640x400"), (1000, 1, "hero-1280x800"), (500, 2, "hero-1280x800")] {
            var text = ""
            for budget in [5_000, 20_000] where text.isEmpty {
                let dump = try await Browser.run(["--virtual-time-budget=\(budget)", "--window-size=\(viewport),900",
                                                  "--force-device-scale-factor=\(ratio)", "--dump-dom", page.absoluteString])
                text = Browser.preText(id: "tg-check", in: dump.stdout) ?? ""
            }
            #expect(text.contains("dpr \(ratio) width \(viewport)"), "\(text)")
            #expect(text.contains("jpeg \(expected).jpg loaded"), "\(viewport): \(text)")
            #expect(text.contains("webp \(expected).webp loaded"), "\(viewport): \(text)")
        }
    }
}
