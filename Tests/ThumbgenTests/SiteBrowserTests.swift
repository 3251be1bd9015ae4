import Foundation
import Testing

/// A rewritten site in a real browser (Debian's headless Chromium): every image loads, each
/// `<img>` has its size, the candidate fetched is the one `sizes` and the device pixel ratio
/// ask for, alt texts are the author's, and a phone fetches a fraction of the built site's bytes.
@Suite("Site: the rewritten pages in a real browser", .enabled(if: Browser.isAvailable, "needs chromium"))
struct SiteBrowserTests {
    static let page = """
    <!DOCTYPE html>
    <html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
    <style>body { margin: 0 } img { display: block; width: 100%; height: auto }</style></head>
    <body>
    <img src="images/beach.jpg" alt="The beach">
    <p>Between the pictures.</p>
    <img src="images/hills.jpg" alt="Hills">
    <img src="images/logo.png" alt="Logo">
    </body></html>

    """

    /// Posts the probe's findings to the framing page once the page loaded and every lazy
    /// image below had time to come in.
    static let probe = """
    <script>
    document.addEventListener("DOMContentLoaded", function () { window.scrollTo(0, document.body.scrollHeight); });
    window.addEventListener("load", function () { setTimeout(function () {
      var images = [];
      document.querySelectorAll("img").forEach(function (i) {
        images.push({ src: i.getAttribute("src"), current: i.currentSrc, complete: i.complete, natural: i.naturalWidth,
                      width: i.getAttribute("width"), height: i.getAttribute("height"), alt: i.alt });
      });
      parent.postMessage(JSON.stringify({ dpr: window.devicePixelRatio, vw: window.innerWidth, images: images }), "*");
    }, 2000); });
    </script>
    """

    /// A page framing `page` in a viewport `width` pixels wide (headless Chromium's window is
    /// at least 500 wide), that sets out what the framed probe posts in a `<pre id="probe">`.
    static func frame(_ page: String, width: Int) -> String {
        """
        <!DOCTYPE html><html><body style="margin:0">
        <iframe src="\(page)" width="\(width)" height="900" style="border:0;display:block"></iframe>
        <script>window.addEventListener("message", function (e) {
          var pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = e.data; document.body.appendChild(pre);
        });</script>
        </body></html>
        """
    }

    struct Probe: Decodable {
        struct Image: Decodable {
            var src: String, current: String, complete: Bool, natural: Int, width: String?, height: String?, alt: String
        }
        var dpr: Double, vw: Int, images: [Image]
    }

    static let widths = [320, 640, 960, 1280, 1920]

    @Test("At 375 and 1,440 px, at each pixel ratio: the candidate sizes and the ratio ask for, nothing broken",
          arguments: [(375, 1), (375, 2), (375, 3), (1440, 1), (1440, 2)])
    func candidates(viewport: Int, ratio: Int) async throws {
        let folder = try TemporaryDirectory("site-browser")
        try folder.write(try SiteCommandTests.photo(width: 2000, height: 1200).encoded(as: .jpeg, quality: 85),
                         to: "site/images/beach.jpg")
        try folder.write(try SiteCommandTests.photo(width: 1600, height: 900).encoded(as: .jpeg, quality: 85),
                         to: "site/images/hills.jpg")
        let logo = RawImage(width: 800, height: 600, alpha: true) { x, y in
            Colour(r: 200, g: UInt8(y % 256), b: UInt8(x % 256), a: UInt8((x / 4) % 256))
        }
        try folder.write(try logo.encoded(as: .png), to: "site/images/logo.png")
        try folder.write(Self.page, to: "site/index.html")
        let built = try ["beach.jpg", "hills.jpg", "logo.png"].reduce(0) {
            $0 + (try Data(contentsOf: folder.file("site/images/" + $1)).count)
        }
        let run = try await CLIRunner.run(["site", "site", "--cache-dir", "cache"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        let rewritten = try String(contentsOf: folder.file("site/index.html"), encoding: .utf8)
        let probed = try Browser.inject(into: rewritten,
                                        head: Self.probe, body: "")
        try folder.write(probed, to: "site/probe.html")
        let page = try folder.write(Self.frame("probe.html", width: viewport), to: "site/frame.html")
        let output = try await Browser.run(["--virtual-time-budget=15000", "--window-size=\(viewport + 40),1000",
                                            "--force-device-scale-factor=\(ratio)", "--dump-dom", page.absoluteString])
        let text = try #require(Browser.preText(id: "probe", in: output.stdout), "no probe: \(output.stderr.suffix(2000))")
        let probe = try JSONDecoder().decode(Probe.self, from: Data(text.utf8))
        #expect(probe.vw == viewport && Int(probe.dpr) == ratio, "viewport \(probe.vw) at \(probe.dpr)")
        #expect(probe.images.map(\.alt) == ["The beach", "Hills", "Logo"])
        var fetched = 0
        for (image, own) in zip(probe.images, [2000, 1600, 800]) {
            #expect(image.complete && image.natural > 0, "\(image.src) broken")
            #expect(image.width != nil && image.height != nil, "\(image.src) has no size")
            // The smallest candidate at least as wide as the slot in device pixels, of the
            // image's ladder (its own width on top, 1,920 at most).
            let ladder = Self.widths.filter { $0 * 5 <= min(own, 1920) * 4 } + [min(own, 1920)]
            let wanted = ladder.first { $0 >= viewport * ratio } ?? ladder.last!
            let name = (image.current as NSString).lastPathComponent
            #expect(name.contains("-\(wanted)."), "\(image.src) at \(viewport)×\(ratio): fetched \(name), wanted \(wanted)")
            #expect(name.hasSuffix(".webp"), "\(name): not the WebP source")
            let file = folder.file("site/" + image.current.replacingOccurrences(of: "file://" + folder.file("site").path + "/", with: ""))
            fetched += (try? Data(contentsOf: file).count) ?? 0
        }
        if viewport == 375 && ratio == 1 {
            #expect(fetched * 5 <= built, "a phone fetched \(fetched) bytes of the built site's \(built)")
        }
    }
}
