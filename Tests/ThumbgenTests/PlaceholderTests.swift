import Foundation
import Testing
@testable import Thumbgen

/// Placeholders (`--placeholders`): made from the pixels of a source's smallest output before
/// its encode, kept with that output's record, and the same from a cold run, a warm run (the
/// journal's fast path) and a fresh machine over the remote cache.
@Suite("Placeholders: dominant colour, LQIP, ThumbHash")
struct PlaceholderTests {
    /// A placeholder made from `raw`'s pixels as a rendered image.
    static func placeholder(of raw: RawImage) throws -> Placeholder {
        let image = VipsImageRef(owning: try raw.vipsImage())
        return try PlaceholderMaker.make(from: image, frameHeight: image.height)
    }

    @Test("A flat colour's dominant is that colour; the LQIP is a WebP of at most 16 px whose data URI is under 400 characters; the ThumbHash is ThumbHash's of the 100-px copy")
    func madeFromPixels() throws {
        let teal = Colour(r: 0, g: 128, b: 128)
        let flat = try Self.placeholder(of: RawImage(width: 300, height: 200) { _, _ in teal })
        #expect(flat.dominant == "#008080")
        #expect(!flat.hasAlpha)
        #expect(flat.dataURI.count < 400, "\(flat.dataURI.count)")
        #expect(Magic.isWebP(Data(flat.lqip)))
        let folder = try TemporaryDirectory("lqip")
        let lqip = try PixelImage.load(try folder.write(Data(flat.lqip), to: "l.webp"))
        #expect(max(lqip.width, lqip.height) == 16 && lqip.pixel(8, 5, is: teal, tolerance: 12), "\(lqip.pixel(8, 5))")
        let pixels = [UInt8]((0..<(100 * 67)).flatMap { _ in [UInt8(0), 128, 128, 255] })
        #expect(flat.thumbHash == ThumbHash.encode(width: 100, height: 67, rgba: pixels))

        // Most of the image wins, not the mean: three quarters red, one blue.
        let mostlyRed = try Self.placeholder(of: .quadrants(width: 400, height: 400, [.red, .red, .red, .blue]))
        #expect(Self.near(mostlyRed.dominant, .red), "\(mostlyRed.dominant)")
        // A photo-like image (every pixel different) still fits the data URI budget.
        let noisy = try Self.placeholder(of: RawImage(width: 640, height: 480) { x, y in
            Colour(r: UInt8((x * 7 + y * 13) % 256), g: UInt8((x * x + y) % 256), b: UInt8((x ^ y) % 256))
        })
        #expect(noisy.dataURI.count < 400, "\(noisy.dataURI.count)")
    }

    @Test("Transparency: the dominant colour counts opaque pixels only, and the placeholder says it has alpha")
    func transparency() throws {
        let clear = Colour(r: 255, g: 255, b: 255, a: 0)
        let placeholder = try Self.placeholder(of: RawImage(width: 200, height: 200, alpha: true) { x, y in
            x >= 100 && y >= 100 ? .green : clear
        })
        #expect(placeholder.hasAlpha)
        #expect(Self.near(placeholder.dominant, .green, tolerance: 0), "\(placeholder.dominant)")
        #expect(PlaceholderFields(placeholder, kinds: [.dominant])?.transparent == true)
        #expect(PictureMarkup.background(try #require(PlaceholderFields(placeholder, kinds: [.dominant, .lqip]))) == nil)
    }

    @Test("The stored form reads back; a damaged one does not; --placeholders lists parse")
    func storedForm() throws {
        let placeholder = Placeholder(dominant: "#0a0b0c", thumbHash: [1, 2, 3], lqip: [4, 5, 6, 7])
        #expect(Placeholder(stored: placeholder.stored) == placeholder)
        for bad in ["", "#0a0b0c AQID", "0a0b0c AQID BAUGBw==", "#0a0b0c !! BAUGBw==", "#0a0b0c AQID BAUGBw== x"] {
            #expect(Placeholder(stored: bad) == nil, "\(bad)")
        }
        var rejected: String?
        #expect(PlaceholderKind.parseList("none", rejected: &rejected) == [])
        #expect(PlaceholderKind.parseList("thumbhash, LQIP", rejected: &rejected) == [.thumbhash, .lqip])
        #expect(PlaceholderKind.parseList("blurhash", rejected: &rejected) == nil && rejected == "blurhash")
    }

    /// Whether `hex` (`#rrggbb`) is `colour`, each band within `tolerance`.
    static func near(_ hex: String, _ colour: Colour, tolerance: Int = 6) -> Bool {
        guard let parsed = RGBAColor(hex: hex) else { return false }
        return zip([parsed.red, parsed.green, parsed.blue], colour.rgb).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    /// A folder of two photos rendered at 320 and 640 in WebP and JPEG with every placeholder.
    static func render(_ space: Workspace, _ extra: [String] = []) async throws -> CLIResult {
        try await CLIRunner.run(["render", "photos", "--out", "out", "--index", "index.json", "--report", "report.json",
                                 "--size", "320,640", "--format", "webp,jpeg",
                                 "--placeholders", "dominant,lqip,thumbhash"] + extra,
                                in: space.folder.url, cacheDirectory: space.cache)
    }

    /// Each source's placeholder in the index at `url`, by `src`.
    static func indexed(_ url: URL) throws -> [String: [String: String]] {
        let index = try ReportSchemaTests.json(url)
        var found: [String: [String: String]] = [:]
        for source in index["sources"] as? [[String: Any]] ?? [] {
            found[source["src"] as? String ?? ""] = source["placeholder"] as? [String: String]
        }
        return found
    }

    @Test("Cold and warm runs give the same placeholders, on the row of each source's smallest output; the index has one per source; none asked, none given")
    func coldAndWarm() async throws {
        let space = try Workspace("placeholders")
        try space.fixture(.quadrants(width: 1600, height: 1000), "photos/hero.png")
        try space.fixture(.quadrants(width: 900, height: 900, [.blue, .blue, .blue, .yellow]), "photos/square.jpg", as: .jpeg)
        let cold = try await Self.render(space)
        #expect(cold.status == 0, "\(cold.stderr)")
        let coldReport = try Report.read(space.folder.file("report.json"))
        let carrying = coldReport.rows.filter { $0.placeholder != nil }
        // One row a source, a 320-wide one (the first of the two formats that share its pixels).
        #expect(carrying.compactMap(\.out).sorted() == ["hero-320x200.webp", "square-320x320.webp"], "\(carrying.map(\.out))")
        let square = try #require(carrying.first { $0.out == "square-320x320.webp" }?.placeholder)
        #expect(Self.near(square.dominant ?? "", .blue), "\(String(describing: square.dominant))")
        #expect(square.lqip?.hasPrefix("data:image/webp;base64,") == true && square.thumbhash != nil)
        let coldIndex = try Self.indexed(space.folder.file("index.json"))
        #expect(coldIndex.count == 2 && coldIndex["photos/square.jpg"]?["dominant"] == square.dominant)
        if ReportSchemaTests.hasValidator {
            for (file, schema) in [("index.json", ImageIndexTests.schema), ("report.json", ReportSchemaTests.schema)] {
                let problems = try #require(try ReportSchemaTests.violations(space.folder.file(file), schema: schema))
                #expect(problems.isEmpty, "\(file): \(problems.joined(separator: "\n"))")
            }
        }

        // Warm twice: the second is served by the warm journal, which keeps no placeholder and
        // reads it from the record.
        for _ in 0..<2 {
            let warm = try await Self.render(space)
            #expect(warm.status == 0, "\(warm.stderr)")
            let report = try Report.read(space.folder.file("report.json"))
            #expect(report.rows.allSatisfy { $0.cache == "hit" && $0.status == "unchanged" })
            #expect(report.rows.map(\.placeholder) == coldReport.rows.map(\.placeholder))
            #expect(try Self.indexed(space.folder.file("index.json")) == coldIndex)
        }

        // Only what was asked for; nothing with none.
        let some = try await Self.render(space, ["--placeholders", "thumbhash"])
        #expect(some.status == 0, "\(some.stderr)")
        let thumbhashOnly = try Report.read(space.folder.file("report.json")).rows.compactMap(\.placeholder)
        #expect(thumbhashOnly.count == 2 && thumbhashOnly.allSatisfy { $0.thumbhash != nil && $0.dominant == nil && $0.lqip == nil })
        let none = try await Self.render(space, ["--placeholders", "none"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(try Report.read(space.folder.file("report.json")).rows.allSatisfy { $0.placeholder == nil })
        #expect(try Self.indexed(space.folder.file("index.json")).isEmpty)
        let refused = try await Self.render(space, ["--placeholders", "blurhash"])
        #expect(refused.status == 2 && refused.stderr.contains("blurhash"), "\(refused.stderr)")
    }

    @Test("A fresh machine over the remote cache gets the placeholders the first one made, without rendering; so does each of two shards on machines of their own")
    func overRemoteCache() async throws {
        let nginx = try await NginxServer.start()
        let machine = try RemoteCacheFixture("placeholders-remote")
        let kinds = ["--placeholders", "dominant,lqip,thumbhash"]
        let first = try await machine.run(remote: nginx.cacheURL, kinds)
        #expect(first.status == 0, "\(first.result.stderr)")
        let made = try #require(first.report?.rows.map(\.placeholder))
        // q.jpg's smaller output (row 3) and p.png's only one.
        #expect(made.map { $0 != nil } == [false, true, true], "\(made)")
        try machine.forgetLocal()
        let second = try await machine.run(remote: nginx.cacheURL, kinds)
        #expect(second.status == 0, "\(second.result.stderr)")
        let rows = try #require(second.report?.rows)
        #expect(rows.allSatisfy { $0.ms?["render"] == nil }, "\(rows)")
        #expect(rows.map(\.placeholder) == made)

        // Each of two shards, on a machine of its own, gives its rows the same placeholders.
        let firstRows = try #require(first.report?.rows)
        var seen: [Int: Report.Placeholder?] = [:]
        for shard in 0...1 {
            try machine.forgetLocal()
            let run = try await machine.run(remote: nginx.cacheURL, kinds + ["--shard", "\(shard)/2"])
            #expect(run.status == 0, "shard \(shard): \(run.result.stderr)")
            for row in try #require(run.report?.rows) { seen[row.row] = row.placeholder }
        }
        #expect(seen.count == firstRows.count)
        for row in firstRows { #expect(seen[row.row] == .some(row.placeholder), "row \(row.row)") }
    }

    /// The `<picture>` the index gives `photos/hero.png` (1600×1000 quadrants) at 320 and 640 in
    /// WebP and JPEG, its URLs under `prefix`, on a page at `out/page.html` that shows it 320 CSS
    /// pixels wide on white.
    static func heroPage(_ space: Workspace, prefix: String, _ extra: [String] = []) async throws -> URL {
        if !FileManager.default.fileExists(atPath: space.folder.file("photos/hero.png").path) {
            try space.fixture(.quadrants(width: 1600, height: 1000), "photos/hero.png")
        }
        let run = try await CLIRunner.run(["render", "photos", "--out", "out", "--index", "index.json",
                                           "--index-url-prefix", prefix, "--size", "320,640", "--format", "webp,jpeg"] + extra,
                                          in: space.folder.url, cacheDirectory: space.cache)
        #expect(run.status == 0, "\(run.stderr)")
        let html = try #require(ImageIndexTests.html(try ReportSchemaTests.json(space.folder.file("index.json")), "photos/hero.png"))
        return try space.folder.write("""
            <!doctype html><html><head><meta charset="utf-8">
            <style>body { margin: 0; background: #fff } img { display: block; width: 320px; height: auto }</style>
            </head><body>\(html)</body></html>
            """, to: "out/page.html")
    }

    /// A screenshot of `url` in a 400×300 window, taken after `stopAfter` milliseconds (loads
    /// still pending are stopped), or once the page loaded.
    static func screenshot(_ url: String, in space: Workspace, name: String, stopAfter: Int?) async throws -> PixelImage {
        let shot = space.folder.file(name)
        let timing = stopAfter.map { ["--timeout=\($0)"] } ?? ["--virtual-time-budget=5000"]
        let output = try await Browser.run(timing + ["--window-size=400,300", "--screenshot=\(shot.path)", url])
        #expect(!output.timedOut, "chromium: \(output.stderr.suffix(2000))")
        return try PixelImage.load(shot)
    }

    @Test("Chromium draws the placeholder in the image's box while the image is delayed, the image once it arrives, and white without placeholders: screenshots checked by pixel",
          .enabled(if: Browser.isAvailable, "needs chromium (scripts/setup installs it)"))
    func browserShowsPlaceholderFirst() async throws {
        let space = try Workspace("placeholder-browser")
        try FileManager.default.createDirectory(at: space.out, withIntermediateDirectories: true)
        let server = try FaultServer(root: space.out)
        defer { server.stop() }
        // The centre of each quadrant, in CSS pixels of the 320×200 box, and its colour.
        let centres: [(Int, Int, Colour)] = [(80, 50, .red), (240, 50, .green), (80, 150, .blue), (240, 150, .yellow)]
        func near(_ pixel: [UInt8], _ colour: Colour, _ tolerance: Int) -> Bool {
            zip(pixel.prefix(3), colour.rgb).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
        }

        // Images held back for a minute: the screenshot after 3 s shows the placeholder.
        _ = try await Self.heroPage(space, prefix: "/delay/60000/")
        let waiting = try await Self.screenshot(server.url("/img/page.html"), in: space, name: "waiting.png", stopAfter: 3000)
        for (x, y, colour) in centres {
            #expect(near(waiting.pixel(x, y), colour, 60), "placeholder at (\(x), \(y)): \(waiting.pixel(x, y))")
        }
        // Blurred: across the red/green edge the colour changes over many pixels, not one.
        #expect(!near(waiting.pixel(158, 50), .red, 20) || !near(waiting.pixel(162, 50), .green, 20),
                "\(waiting.pixel(158, 50)) \(waiting.pixel(162, 50))")
        #expect(near(waiting.pixel(370, 100), .white, 2), "beside the box: \(waiting.pixel(370, 100))")

        // The same wait with no placeholder: the box is blank.
        _ = try await Self.heroPage(space, prefix: "/delay/60000/", ["--placeholders", "none"])
        let blank = try await Self.screenshot(server.url("/img/page.html"), in: space, name: "blank.png", stopAfter: 3000)
        for (x, y, _) in centres {
            #expect(near(blank.pixel(x, y), .white, 8), "no placeholder at (\(x), \(y)): \(blank.pixel(x, y))")
        }

        // Images served at once: the image itself, edges sharp.
        _ = try await Self.heroPage(space, prefix: "/img/")
        let loaded = try await Self.screenshot(server.url("/img/page.html"), in: space, name: "loaded.png", stopAfter: nil)
        for (x, y, colour) in centres {
            #expect(near(loaded.pixel(x, y), colour, 10), "image at (\(x), \(y)): \(loaded.pixel(x, y))")
        }
        #expect(near(loaded.pixel(156, 50), .red, 12) && near(loaded.pixel(164, 50), .green, 12),
                "\(loaded.pixel(156, 50)) \(loaded.pixel(164, 50))")
    }
}
