import Foundation
import Testing

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
