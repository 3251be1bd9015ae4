import Foundation
import Testing
@testable import Thumbgen

/// The `--html` contact sheet: its text is escaped, its image URLs relative and encoded, it is
/// written whole or not at all; and in headless Chromium the page of a run with failures loads
/// without errors, every output decodes at the size the report gives, the counts shown are the
/// report's, and the filters work.
@Suite("Contact sheet (--html)")
struct ContactSheetTests {
    @Test("Text is escaped; URLs are relative to the page's folder and percent-encoded")
    func escaping() throws {
        #expect(ContactSheet.escaped("<script>a & \"b\" 'c'</script>")
                == "&lt;script&gt;a &amp; &quot;b&quot; &#39;c&#39;&lt;/script&gt;")
        #expect(ContactSheet.escaped("plain ünïcode") == "plain ünïcode")
        #expect(ContactSheet.encodedPath("sub dir/é x#?%:1.png") == "sub%20dir/%C3%A9%20x%23%3F%25%3A1.png")

        let folder = try TemporaryDirectory("sheet-paths")
        let root = folder.url.resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("a/b"),
                                                withIntermediateDirectories: true)
        let out = root.appendingPathComponent("out")
        #expect(ContactSheet.relativeURL(from: root, to: out) == "out/")
        #expect(ContactSheet.relativeURL(from: out, to: out) == "")
        #expect(ContactSheet.relativeURL(from: root.appendingPathComponent("a/b"), to: out) == "../../out/")
        #expect(ContactSheet.relativeURL(from: root, to: root.appendingPathComponent("not yet/#x"))
                == "not%20yet/%23x/")
        // A link to the output folder counts as where it leads.
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("a/link"),
                                                   withDestinationURL: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        #expect(ContactSheet.relativeURL(from: root.appendingPathComponent("a/b"),
                                         to: root.appendingPathComponent("a/link")) == "../../out/")

        #expect(ContactSheet.readableBytes(812) == "812 B")
        #expect(ContactSheet.readableBytes(8123) == "7.9 KiB")
        #expect(ContactSheet.readableBytes(3 << 20) == "3.0 MiB")
    }

    @Test("Cards stream to a temporary file; finish puts the whole page in place and leaves nothing else")
    func streaming() throws {
        let folder = try TemporaryDirectory("sheet-stream")
        let page = folder.file("sheets/run.html")
        var summary = RunSummary()
        do {
            let sheet = try ContactSheet(destination: page, outputDirectory: folder.file("out"))
            // Rows in completion order, not manifest order.
            let rows = [
                RowResult(row: 3, id: "<b>bold</b>", src: "b.png", status: .written, out: "x/b 1.png",
                          width: 40, height: 30, bytes: 2048, format: .png, cache: .miss),
                RowResult(row: 2, id: "2", src: "gone.png", status: .failed,
                          error: .init(code: .sourceNotFound, message: "gone.png: <no such file>")),
            ]
            for row in rows { sheet.add(row); summary.count(row) }
            #expect(folder.files(under: "sheets").count == 1, "the cards' temporary file")
            #expect(!FileManager.default.fileExists(atPath: page.path))
            try sheet.finish(summary: summary)
        }
        #expect(folder.files(under: "sheets") == ["run.html"])
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.hasPrefix("<!doctype html>") && html.hasSuffix("</html>\n"))
        #expect(html.contains("<img src=\"../out/x/b%201.png\" alt=\"&lt;b&gt;bold&lt;/b&gt;\" width=\"40\" height=\"30\""))
        #expect(html.contains("gone.png: &lt;no such file&gt;"))
        #expect(html.contains("data-status=\"failed\" data-count=\"1\""))
        #expect(!html.contains("<b>bold") && !html.contains("<no such"))
        let third = try #require(html.range(of: "data-row=\"3\""))
        let second = try #require(html.range(of: "data-row=\"2\""))
        #expect(third.lowerBound < second.lowerBound, "cards are written in completion order")

        // A sheet never finished (the run stopped) leaves no file behind.
        do {
            let sheet = try ContactSheet(destination: folder.file("other/run.html"), outputDirectory: folder.url)
            sheet.add(RowResult(row: 2, id: "2", src: "a", status: .cancelled))
        }
        #expect(folder.files(under: "other").isEmpty)
    }

    @Test("A dry run's page shows outputs already in place, and the plan for the others")
    func dryRun() throws {
        let folder = try TemporaryDirectory("sheet-dry")
        let page = folder.file("run.html")
        var keep = RowResult(row: 2, id: "k", src: "a.png", status: .planned, out: "a.jpg",
                             width: 64, height: 48, bytes: 900, format: .jpeg)
        keep.plan = .keep
        var render = RowResult(row: 3, id: "r", src: "b.png", status: .planned)
        render.plan = .render
        let failed = RowResult(row: 4, id: "f", src: "c.png", status: .failed,
                               error: .init(code: .sourceNotFound, message: "c.png: no such file"))
        var summary = RunSummary()
        let sheet = try ContactSheet(destination: page, outputDirectory: folder.file("out"))
        for row in [render, failed, keep] { sheet.add(row); summary.count(row) }
        try sheet.finish(summary: summary)
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.contains("data-status=\"planned\" data-plan=\"keep\" data-format=\"jpeg\"><a class=\"pic\" href=\"out/a.jpg\"><img src=\"out/a.jpg\""))
        #expect(html.contains("data-plan=\"render\"><div class=\"why\"><p class=\"code\">render</p>"))
        #expect(html.contains("<label for=\"show-planned\" data-status=\"planned\" data-count=\"2\">"))
        #expect(html.contains("<li data-plan=\"render\" data-count=\"1\">"))
        #expect(html.contains("data-code=\"source_not_found\""))
    }

    @Test("In headless Chromium: no errors, every output decoded at its reported size, counts and filters right",
          .enabled(if: Browser.isAvailable, "needs chromium (scripts/setup installs it)"))
    func browser() async throws {
        let space = try Workspace("sheet")
        try space.fixture(.quadrants(width: 300, height: 200), "a.png")
        try space.fixture(RawImage(width: 90, height: 240) { x, y in
            Colour(r: UInt8(x * 2), g: UInt8(y), b: 120)
        }, "tall.png")
        try space.fixture(.quadrants(width: 160, height: 160, [.magenta, .blue, .green, .red]), "b.webp", as: .webp)
        try space.folder.write(FixtureBytes.truncated(try RawImage.quadrants(width: 300, height: 200)
            .encoded(as: .jpeg)), to: "half.jpg")
        let header = ["id", "src", "out", "size"]
        let kept: [[String]] = [
            ["alpha", "a.png", "a.jpg", "120"],                                       // 2
            ["<script>window.__pwned=1</script>", "tall.png", "sub dir/tall #1.png", "x150"],  // 3
        ]
        let rows = kept + [
            ["webp", "b.webp", "b.webp", "64x64"],                                    // 4
            ["gif", "a.png", "c.gif", "96"],                                          // 5
            ["avif", "tall.png", "d.avif", "50"],                                     // 6
            ["ünïcode & \"quotes\"", "a.png", "é/photo?.webp", "200"],                // 7
            ["missing", "missing.png", "", ""],                                       // 8
            ["truncated", "half.jpg", "", ""],                                        // 9
            ["bad size", "a.png", "", "zz"],                                          // 10
            ["<img src=x onerror=\"window.__pwned=2\">", "nowhere.png", "", ""],      // 11
        ]
        // A first run writes two outputs, so that the second finds them unchanged.
        let first = try await space.run(manifest: CSV.manifest(header, kept))
        #expect(first.status == 0, "\(first.result.stderr)")
        let page = space.folder.file("sheets/contact.html")
        let run = try await space.run(manifest: CSV.manifest(header, rows), ["--html", page.path])
        #expect(run.status == 1, "\(run.result.stderr)")
        let report = try #require(run.report)
        #expect(report.summary.rows == 10 && report.summary.unchanged == 2 && report.summary.written == 4
                && report.summary.failed == 4, "\(report.summary)")
        #expect(Set(report.rows.compactMap { $0.error?.code }) == ["source_not_found", "decode_failed", "invalid_row"])

        // Self-contained, escaped, and nothing left beside it.
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(space.folder.files(under: "sheets") == ["contact.html"])
        for external in ["http:", "https:", "<link", "src=\"/", "@import", "url("] {
            #expect(!html.contains(external), "the page refers to something outside: \(external)")
        }
        #expect(!html.contains("<script>window.__pwned") && !html.contains("<img src=x"))

        // The page, instrumented: errors caught from the start, a check that runs after load.
        let checked = space.folder.file("sheets/contact-check.html")
        try Browser.inject(into: html, head: Browser.errorCatcher, body: Self.checker)
            .write(to: checked, atomically: true, encoding: .utf8)
        // The checker writes its result within the load event; an empty check (a browser that
        // did not get that far) is asked for again.
        var dump = try await Browser.dumpDOM(checked)
        for _ in 0..<3 where (Browser.preText(id: "tg-check", in: dump.stdout) ?? "").isEmpty {
            dump = try await Browser.dumpDOM(checked, budget: 30_000)
        }
        #expect(!dump.timedOut && dump.status == 0, "chromium: \(dump.stderr.suffix(2000))")
        let text = try #require(Browser.preText(id: "tg-check", in: dump.stdout).flatMap { $0.isEmpty ? nil : $0 },
                                "no check in the DOM: \(dump.stdout.prefix(500)) \(dump.stderr.suffix(2000))")
        let check = try JSONDecoder().decode(PageCheck.self, from: Data(text.utf8))
        let summary = report.summary

        #expect(check.errors.isEmpty, "JavaScript errors: \(check.errors)")
        #expect(check.pwned == "undefined", "a manifest id ran as script")
        #expect(dump.consoleLines.isEmpty, "console: \(dump.consoleLines)")

        // One card per row, in manifest order (the page sorts them), showing the row's id.
        #expect(check.images.count == summary.written + summary.unchanged)
        #expect(check.cards.map(\.row) == report.rows.map(\.row).sorted())
        for row in report.rows {
            let cards = check.cards.filter { $0.row == row.row }
            guard cards.count == 1, let card = cards.first else {
                Issue.record("row \(row.row): \(cards.count) cards")
                continue
            }
            #expect(card.status == row.status && card.idText == row.id, "row \(row.row): \(card)")
            let images = check.images.filter { $0.row == row.row }
            if row.status == "written" || row.status == "unchanged" {
                guard images.count == 1, let image = images.first else {
                    Issue.record("row \(row.row): \(images.count) images")
                    continue
                }
                #expect(image.complete && image.decoded, "row \(row.row): \(image.src) did not decode")
                #expect(image.naturalWidth == row.width && image.naturalHeight == row.height,
                        "row \(row.row): \(image.naturalWidth)x\(image.naturalHeight), report \(row.width ?? 0)x\(row.height ?? 0)")
                #expect(image.dataWidth == row.width.map(String.init) && image.dataHeight == row.height.map(String.init))
                #expect(image.src.hasPrefix("../out/"), "row \(row.row): \(image.src)")
                #expect(card.cache == row.cache, "row \(row.row)")
            } else {
                #expect(images.isEmpty, "row \(row.row) has an image")
                #expect(card.code == row.error?.code && card.codeText == row.error?.code, "row \(row.row): \(card)")
                #expect(card.messageText == row.error?.message, "row \(row.row): \(card)")
            }
        }

        // The counts shown (attribute and text) are the report's.
        let expected = ["all": summary.rows, "written": summary.written, "unchanged": summary.unchanged,
                        "failed": summary.failed, "cancelled": summary.cancelled]
        #expect(Dictionary(uniqueKeysWithValues: check.counts.map { ($0.key, $0.dataCount) }) == expected)
        #expect(Dictionary(uniqueKeysWithValues: check.counts.map { ($0.key, $0.shownNumber) }) == expected)
        #expect(Dictionary(uniqueKeysWithValues: check.errorCodes.map { ($0.key, $0.shownNumber) }) == summary.errors)
        #expect(Dictionary(uniqueKeysWithValues: check.errorCodes.map { ($0.key, $0.dataCount) }) == summary.errors)
        #expect(Dictionary(uniqueKeysWithValues: check.cache.map { ($0.key, $0.shownNumber) }) == summary.cache)

        // Filters: all shows every card; failed shows the failures only (and says so in the address).
        var byStatus: [String: Int] = [:]
        for row in report.rows { byStatus[row.status, default: 0] += 1 }
        #expect(check.visible == byStatus)
        #expect(check.visibleFailed == ["failed": summary.failed], "\(check.visibleFailed)")
        #expect(check.hashAfterFilter == "#failed")
        #expect(check.visibleUnchanged == ["unchanged": summary.unchanged], "\(check.visibleUnchanged)")
        #expect(check.visibleAgain == byStatus)

        // A screenshot of the page itself: the window's size, and not one flat colour.
        let shot = space.folder.file("shot.png")
        let screenshot = try await Browser.screenshot(page, to: shot, width: 1280, height: 2000)
        #expect(!screenshot.timedOut && screenshot.status == 0, "chromium: \(screenshot.stderr.suffix(2000))")
        #expect(screenshot.consoleLines.isEmpty, "console: \(screenshot.consoleLines)")
        let facts = try ImageFacts.read(shot)
        #expect(facts.width == 1280 && facts.height == 2000, "\(facts)")
        let pixels = try PixelImage.load(shot)
        var colours = Set<[UInt8]>()
        for y in stride(from: 0, to: pixels.height, by: 7) {
            for x in stride(from: 0, to: pixels.width, by: 7) { colours.insert(pixels.pixel(x, y)) }
        }
        #expect(colours.count > 20, "the screenshot has \(colours.count) colours")
    }

    /// Runs after `load` and every image's `decode()`: writes what the page shows, as JSON, into
    /// `<pre id="tg-check">` (read back from Chromium's `--dump-dom`).
    static let checker = """
    <pre id="tg-check"></pre>
    <script>
    window.addEventListener("load", function () {
      var all = function (selector) { return Array.prototype.slice.call(document.querySelectorAll(selector)); };
      var text = function (element, selector) {
        var found = element.querySelector(selector);
        return found ? found.textContent : null;
      };
      var visible = function () {
        var counts = {};
        all("#cards .card").forEach(function (card) {
          if (getComputedStyle(card).display === "none") return;
          var status = card.getAttribute("data-status");
          counts[status] = (counts[status] || 0) + 1;
        });
        return counts;
      };
      var counted = function (selector, key) {
        return all(selector).map(function (element) {
          return { key: element.getAttribute(key), dataCount: Number(element.getAttribute("data-count")),
                   shown: text(element, ".n") };
        });
      };
      // Each image is drawn onto a canvas, which decodes it there and then: the check is
      // written within the load event, in the virtual time --dump-dom grants. (Waiting for
      // image.decode() ran in real time, and on a loaded machine the DOM was dumped first.)
      var images = all("img");
      var outcomes = images.map(function (image) {
        try {
          var canvas = document.createElement("canvas");
          canvas.width = 1;
          canvas.height = 1;
          canvas.getContext("2d").drawImage(image, 0, 0, 1, 1);
          return { status: image.complete && image.naturalWidth > 0 ? "fulfilled" : "rejected" };
        } catch (error) {
          return { status: "rejected" };
        }
      });
      (function () {
        var check = {
          images: images.map(function (image, index) {
            var card = image.closest(".card");
            return { src: image.getAttribute("src"), complete: image.complete,
                     naturalWidth: image.naturalWidth, naturalHeight: image.naturalHeight,
                     decoded: outcomes[index].status === "fulfilled",
                     row: card ? Number(card.getAttribute("data-row")) : null,
                     dataWidth: image.getAttribute("data-width"), dataHeight: image.getAttribute("data-height") };
          }),
          cards: all("#cards .card").map(function (card) {
            return { row: Number(card.getAttribute("data-row")), status: card.getAttribute("data-status"),
                     code: card.getAttribute("data-code"), cache: card.getAttribute("data-cache"),
                     codeText: text(card, ".code"), messageText: text(card, ".message"), idText: text(card, ".id") };
          }),
          counts: counted("nav.filters label[data-status]", "data-status"),
          errorCodes: counted("ul.errors li[data-code]", "data-code"),
          cache: counted("ul.cache li[data-cache]", "data-cache"),
          visible: visible()
        };
        document.querySelector('label[data-status="failed"]').click();
        check.visibleFailed = visible();
        check.hashAfterFilter = location.hash;
        document.querySelector('label[data-status="unchanged"]').click();
        check.visibleUnchanged = visible();
        document.querySelector('label[data-status="all"]').click();
        check.visibleAgain = visible();
        check.pwned = typeof window.__pwned;
        check.errors = window.__tgErrors;
        document.getElementById("tg-check").textContent = JSON.stringify(check);
      })();
    });
    </script>

    """

    /// What the checker script found.
    struct PageCheck: Decodable {
        struct Image: Decodable {
            var src: String
            var complete: Bool
            var naturalWidth: Int
            var naturalHeight: Int
            var decoded: Bool
            var row: Int?
            var dataWidth: String?
            var dataHeight: String?
        }
        struct Card: Decodable {
            var row: Int
            var status: String
            var code: String?
            var cache: String?
            var codeText: String?
            var messageText: String?
            var idText: String?
        }
        struct Count: Decodable {
            var key: String
            var dataCount: Int
            var shown: String?
            /// The number shown as text, or -1.
            var shownNumber: Int { shown.flatMap { Int($0) } ?? -1 }
        }
        var images: [Image]
        var cards: [Card]
        var counts: [Count]
        var errorCodes: [Count]
        var cache: [Count]
        var visible: [String: Int]
        var visibleFailed: [String: Int]
        var hashAfterFilter: String
        var visibleUnchanged: [String: Int]
        var visibleAgain: [String: Int]
        var pwned: String
        var errors: [String]
    }
}
