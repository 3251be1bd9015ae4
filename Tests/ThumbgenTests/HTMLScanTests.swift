import Foundation
import Testing
@testable import Thumbgen

/// `HTMLScan`: the `<img>` start tags a browser would find, at the exact bytes they were
/// written at, and nothing that only looks like one.
@Suite("Site: finding <img> tags with an HTML5 parser")
struct HTMLScanTests {
    static func scan(_ html: String) -> (bytes: [UInt8], found: [FoundImage]) {
        let bytes = Array(html.utf8)
        return (bytes, HTMLScan.images(in: bytes))
    }

    static func text(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    @Test("Tags in comments, scripts, textareas, titles and attribute values are not images; the rest are found whole")
    func onlyRealTags() {
        let html = """
        <!DOCTYPE html><html><head><title>a <img src="t.jpg"></title>
        <script>var s = '<img src="s.jpg">';</script></head><body>
        <!-- <img src="c.jpg"> -->
        <textarea><img src="x.jpg"></textarea>
        <p title='<img src="v.jpg">'>text</p>
        <IMG SRC="/a.jpg" ALT="A &amp; B" class=hero>
        <img src=b.jpg alt=logo/>
        <img/src="c.jpg">
        <img src="d.jpg"
             alt="two lines" />
        <svg><image href="e.jpg"/></svg>
        </body></html>
        """
        let (bytes, found) = Self.scan(html)
        #expect(found.map { $0.value("src") } == ["/a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        #expect(found.map { Self.text(bytes, $0.tag) } == [
            "<IMG SRC=\"/a.jpg\" ALT=\"A &amp; B\" class=hero>", "<img src=b.jpg alt=logo/>", "<img/src=\"c.jpg\">",
            "<img src=\"d.jpg\"\n     alt=\"two lines\" />",
        ])
        // Names lowercased, values decoded; ranges as written.
        #expect(found[0].value("alt") == "A & B")
        #expect(found[0].attributes.map { Self.text(bytes, $0.nameRange) } == ["SRC", "ALT", "class"])
        #expect(found[0].attributes.map { $0.valueRange.map { Self.text(bytes, $0) } } == ["\"/a.jpg\"", "\"A &amp; B\"", "hero"])
        // An unquoted value keeps its slash: new attributes go after it, not inside it.
        #expect(found[1].value("alt") == "logo/")
        #expect(Self.text(bytes, found[1].tag.lowerBound..<found[1].insertionPoint) == "<img src=b.jpg alt=logo/")
        #expect(Self.text(bytes, found[3].tag.lowerBound..<found[3].insertionPoint) == "<img src=\"d.jpg\"\n     alt=\"two lines\"")
        #expect(found.map(\.line) == [6, 7, 8, 9])
    }

    @Test("The context of an <img>: a <picture> (thumbgen's own, with its marker and range) and a <template>")
    func contexts() {
        let html = """
        <p><img src="a.jpg"></p>
        <picture><source srcset="x.webp"><img src="b.jpg"></picture>
        <PICTURE data-thumbgen="srcset sizes"><img src="c.jpg" srcset="1.jpg 1w" sizes="1px"></PICTURE>
        <template><img src="d.jpg"></template>
        """
        let (bytes, found) = Self.scan(html)
        #expect(found.count == 4)
        #expect(found[0].context == .plain)
        guard case .inPicture(let other) = found[1].context, case .inPicture(let own) = found[2].context else {
            Issue.record("no pictures found: \(found.map(\.context))")
            return
        }
        #expect(other.marker == nil)
        #expect(own.marker == "srcset sizes")
        #expect(own.range.map { Self.text(bytes, $0) }
                == "<PICTURE data-thumbgen=\"srcset sizes\"><img src=\"c.jpg\" srcset=\"1.jpg 1w\" sizes=\"1px\"></PICTURE>")
        #expect(found[3].context == .inTemplate)
    }

    @Test("A page without <img> in any case is not parsed; one with is")
    func preCheck() {
        #expect(!SitePlan.mayHoldImages(Array("<p>images: img, <im g>".utf8)))
        #expect(SitePlan.mayHoldImages(Array("x<ImG src=a>".utf8)))
    }

    @Test("A deep page (20,000 nested elements) is walked without recursion")
    func deepNesting() {
        let html = String(repeating: "<div>", count: 20_000) + "<img src=\"deep.jpg\">"
        #expect(Self.scan(html).found.map { $0.value("src") } == ["deep.jpg"])
    }
}
