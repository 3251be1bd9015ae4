import Foundation
import Testing
@testable import Thumbgen

/// `focus=auto`: the focal point an image carries, from an IPTC Image Region in its XMP (the
/// test writes one into a PNG's iTXt chunk), else EXIF `SubjectArea`, else the gravity.
@Suite("End to end: focus=auto")
struct FocusFromFileTests {
    /// An XMP packet with IPTC Image Regions: each a boundary (element or attribute form) and
    /// its role.
    static func xmp(_ regions: [(boundary: String, role: String)]) -> String {
        let items = regions.map { region in
            """
            <rdf:li rdf:parseType="Resource">\(region.boundary)<Iptc4xmpExt:rRole><rdf:Bag><rdf:li rdf:parseType="Resource">\
            <xmp:Identifier><rdf:Bag><rdf:li>http://cv.iptc.org/newscodes/imageregionrole/\(region.role)</rdf:li></rdf:Bag>\
            </xmp:Identifier></rdf:li></rdf:Bag></Iptc4xmpExt:rRole></rdf:li>
            """
        }.joined()
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" \
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"><Iptc4xmpExt:ImageRegion><rdf:Bag>\(items)</rdf:Bag>\
            </Iptc4xmpExt:ImageRegion></rdf:Description></rdf:RDF></x:xmpmeta>
            """
    }

    /// A rectangle near the left edge, in relative units, as elements: its centre is x = 0.1.
    static let leftCropping = (boundary: """
        <Iptc4xmpExt:RegionBoundary rdf:parseType="Resource"><Iptc4xmpExt:rbShape>rectangle</Iptc4xmpExt:rbShape>\
        <Iptc4xmpExt:rbUnit>relative</Iptc4xmpExt:rbUnit><Iptc4xmpExt:rbX>0.05</Iptc4xmpExt:rbX>\
        <Iptc4xmpExt:rbY>0.25</Iptc4xmpExt:rbY><Iptc4xmpExt:rbW>0.1</Iptc4xmpExt:rbW><Iptc4xmpExt:rbH>0.5</Iptc4xmpExt:rbH>\
        </Iptc4xmpExt:RegionBoundary>
        """, role: "cropping")
    /// A rectangle near the right edge of a 400×200 image, in pixels, as attributes: x = 0.9.
    static let rightSubject = (boundary: """
        <Iptc4xmpExt:RegionBoundary Iptc4xmpExt:rbShape="rectangle" Iptc4xmpExt:rbUnit="pixel" \
        Iptc4xmpExt:rbX="340" Iptc4xmpExt:rbY="50" Iptc4xmpExt:rbW="40" Iptc4xmpExt:rbH="100"/>
        """, role: "mainSubject")

    /// The bands image as a PNG carrying `xmp` in an `iTXt` chunk.
    static func bands(with xmp: String) throws -> Data {
        let png = try FocusAndOutsideTests.bands.encoded(as: .png)
        let text = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8)
        return PNGBytes.inserting([PNGBytes.chunk("iTXt", text)], into: png)
    }

    @Test("The main subject's region wins over a cropping one; a cropping one is used alone; none leaves the gravity; the crop box follows")
    func regions() async throws {
        let space = try Workspace("focus-auto")
        try space.folder.write(try Self.bands(with: Self.xmp([Self.leftCropping, Self.rightSubject])), to: "both.png")
        try space.folder.write(try Self.bands(with: Self.xmp([Self.leftCropping])), to: "cropping.png")
        try space.fixture(FocusAndOutsideTests.bands, "plain.png")
        let rows = ["both", "cropping", "plain"].map { ["\($0).png", "\($0)-out.png", "100x100", "cover", "auto"] }
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size", "fit", "focus"], rows))
        #expect(run.status == 0, "\(run.result.stderr)")
        func expect(_ out: String, _ samples: [(Int, Int, Colour)]) throws {
            let image = try space.pixels(out)
            for (x, y, colour) in samples {
                let found = image.pixel(x, y)
                #expect(image.pixel(x, y, is: colour, tolerance: 6), "\(out) at (\(x), \(y)) is \(found), expected \(colour)")
            }
        }
        // Centred at x = 0.9 (clamped to the right edge), at 0.1 (the left edge), and the centre.
        try expect("both-out.png", [(10, 50, .blue), (90, 50, .yellow)])
        try expect("cropping-out.png", [(10, 50, .red), (90, 50, .green)])
        try expect("plain-out.png", [(10, 50, .green), (90, 50, .blue)])
        let crops = try #require(run.report).rows.map(\.crop)
        #expect(crops == [Report.Crop(x: 200, y: 0, width: 200, height: 200), Report.Crop(x: 0, y: 0, width: 200, height: 200),
                          Report.Crop(x: 100, y: 0, width: 200, height: 200)])
        var spec = ThumbnailSpec()
        spec.focusFromFile = true
        #expect(spec.identifier.hasSuffix(";focus=auto"))
    }

    @Test("EXIF SubjectArea, in stored pixels, turned by the orientation; regions parse in both forms")
    func subjectArea() {
        // A point at (300, 50) of a 400×200 stored image: 0.75, 0.25 upright.
        let plain = FocusFinder.focus(xmp: nil, subjectArea: "300 50 (300, 50, Short, 2 components, 4 bytes)",
                                      storedWidth: 400, storedHeight: 200, orientation: 1)
        #expect(plain == FocusPoint(x: 0.75, y: 0.25))
        // Orientation 6 (turn 90° clockwise to stand upright): (1 - 0.25, 0.75).
        let turned = FocusFinder.focus(xmp: nil, subjectArea: "300 50 80 60", storedWidth: 400, storedHeight: 200, orientation: 6)
        #expect(turned == FocusPoint(x: 0.75, y: 0.75))
        // A region wins over SubjectArea.
        let region = FocusFinder.focus(xmp: Self.xmp([Self.rightSubject]), subjectArea: "10 10",
                                       storedWidth: 400, storedHeight: 200, orientation: 1)
        #expect(region == FocusPoint(x: 0.9, y: 0.5))
        #expect(FocusFinder.region(xmp: Self.xmp([(boundary: "<Iptc4xmpExt:RegionBoundary/>", role: "mainSubject")]),
                                   width: 400, height: 200) == nil)
        #expect(FocusFinder.focus(xmp: "<x:xmpmeta/>", subjectArea: nil, storedWidth: 400, storedHeight: 200, orientation: 1) == nil)
    }

    @Test("An rdf:li cut short after its slash reads as no region, without a trap (found by fuzzing)")
    func unterminatedItem() {
        #expect(FocusFinder.topLevelItems("<rdf:li/") == [])
        #expect(FocusFinder.focus(xmp: "<Iptc4xmpExt:ImageRegion><rdf:Bag><rdf:li/", subjectArea: nil,
                                  storedWidth: 400, storedHeight: 200, orientation: 1) == nil)
    }
}
