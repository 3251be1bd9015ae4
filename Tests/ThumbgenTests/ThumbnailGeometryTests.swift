import Testing
@testable import Thumbgen

/// `ThumbnailGeometry`: the exact sizes of every fit mode, for every box shape, with and
/// without upscaling and cropping. The source is 400×300 (4:3) unless a case says otherwise.
@Suite("ThumbnailGeometry")
struct ThumbnailGeometryTests {
    /// One planned output: the spec's knobs and the expected scaled and canvas sizes.
    struct Case: CustomTestStringConvertible, Sendable {
        var fit: Fit
        var box: (Int?, Int?)
        var upscale = false
        var crop: CropRect?
        var source = (400, 300)
        var scaled: (Int, Int)
        var canvas: (Int, Int)

        var testDescription: String {
            "\(fit) \(TargetBox(width: box.0, height: box.1)) upscale=\(upscale)"
                + (crop.map { " crop=\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "")
                + " on \(source.0)x\(source.1)"
        }

        var geometry: ThumbnailGeometry {
            var spec = ThumbnailSpec()
            spec.fit = fit
            spec.box = TargetBox(width: box.0, height: box.1)
            spec.upscale = upscale
            spec.crop = crop
            return ThumbnailGeometry(sourceWidth: source.0, sourceHeight: source.1, spec: spec)
        }
    }

    static let square = (Int?.some(200), Int?.some(200))
    static let wOnly = (Int?.some(100), Int?.none)
    static let hOnly = (Int?.none, Int?.some(100))
    static let none = (Int?.none, Int?.none)
    static let big = (Int?.some(800), Int?.some(800))

    static let cases: [Case] = [
        // inside: fit in the box, never padded.
        Case(fit: .inside, box: square, scaled: (200, 150), canvas: (200, 150)),
        Case(fit: .inside, box: wOnly, scaled: (100, 75), canvas: (100, 75)),
        Case(fit: .inside, box: hOnly, scaled: (133, 100), canvas: (133, 100)),
        Case(fit: .inside, box: none, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .inside, box: big, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .inside, box: big, upscale: true, scaled: (800, 600), canvas: (800, 600)),
        // contain: fit in the box, padded to exactly the box.
        Case(fit: .contain, box: square, scaled: (200, 150), canvas: (200, 200)),
        Case(fit: .contain, box: wOnly, scaled: (100, 75), canvas: (100, 75)),
        Case(fit: .contain, box: hOnly, scaled: (133, 100), canvas: (133, 100)),
        Case(fit: .contain, box: none, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .contain, box: big, scaled: (400, 300), canvas: (800, 800)),
        Case(fit: .contain, box: big, upscale: true, scaled: (800, 600), canvas: (800, 800)),
        // cover: fill the box, crop the excess; without upscaling a small source is cropped only.
        Case(fit: .cover, box: square, scaled: (267, 200), canvas: (200, 200)),
        Case(fit: .cover, box: (200, 50), scaled: (200, 150), canvas: (200, 50)),
        Case(fit: .cover, box: wOnly, scaled: (100, 75), canvas: (100, 75)),
        Case(fit: .cover, box: hOnly, scaled: (133, 100), canvas: (133, 100)),
        Case(fit: .cover, box: none, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .cover, box: big, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .cover, box: big, upscale: true, scaled: (1067, 800), canvas: (800, 800)),
        Case(fit: .cover, box: (800, 100), scaled: (400, 300), canvas: (400, 100)),
        // fill: stretch each side to the box (each side capped at 1 without upscaling).
        Case(fit: .fill, box: square, scaled: (200, 200), canvas: (200, 200)),
        Case(fit: .fill, box: (100, 250), scaled: (100, 250), canvas: (100, 250)),
        Case(fit: .fill, box: wOnly, scaled: (100, 75), canvas: (100, 75)),
        Case(fit: .fill, box: hOnly, scaled: (133, 100), canvas: (133, 100)),
        Case(fit: .fill, box: none, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .fill, box: big, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .fill, box: big, upscale: true, scaled: (800, 800), canvas: (800, 800)),
        Case(fit: .fill, box: (200, 600), scaled: (200, 300), canvas: (200, 300)),
        // none: no scaling, the box cut out of the source.
        Case(fit: .none, box: square, scaled: (400, 300), canvas: (200, 200)),
        Case(fit: .none, box: wOnly, scaled: (400, 300), canvas: (100, 300)),
        Case(fit: .none, box: hOnly, scaled: (400, 300), canvas: (400, 100)),
        Case(fit: .none, box: none, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .none, box: big, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .none, box: big, upscale: true, scaled: (400, 300), canvas: (400, 300)),
        // outside: the smallest size covering the box, nothing cut (sharp's `outside`).
        Case(fit: .outside, box: square, scaled: (267, 200), canvas: (267, 200)),
        Case(fit: .outside, box: (200, 50), scaled: (200, 150), canvas: (200, 150)),
        Case(fit: .outside, box: (100, 200), scaled: (267, 200), canvas: (267, 200)),
        Case(fit: .outside, box: wOnly, scaled: (100, 75), canvas: (100, 75)),
        Case(fit: .outside, box: hOnly, scaled: (133, 100), canvas: (133, 100)),
        Case(fit: .outside, box: none, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .outside, box: big, scaled: (400, 300), canvas: (400, 300)),
        Case(fit: .outside, box: big, upscale: true, scaled: (1067, 800), canvas: (1067, 800)),
        // crop first, then the fit applies to the region.
        Case(fit: .inside, box: (100, 100), crop: CropRect(x: 0, y: 0, width: 0.5, height: 1),
             scaled: (67, 100), canvas: (67, 100)),
        Case(fit: .cover, box: (100, 100), crop: CropRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5),
             scaled: (133, 100), canvas: (100, 100)),
        Case(fit: .contain, box: (100, 100), crop: CropRect(x: 0.25, y: 0, width: 0.5, height: 1),
             scaled: (67, 100), canvas: (100, 100)),
        Case(fit: .fill, box: (50, 50), crop: CropRect(x: 0, y: 0, width: 0.25, height: 1),
             scaled: (50, 50), canvas: (50, 50)),
        Case(fit: .none, box: (50, 50), crop: CropRect(x: 0.5, y: 0, width: 0.5, height: 0.5),
             scaled: (200, 150), canvas: (50, 50)),
        Case(fit: .inside, box: none, crop: CropRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5),
             scaled: (200, 150), canvas: (200, 150)),
        Case(fit: .inside, box: big, upscale: true,
             crop: CropRect(x: 0, y: 0, width: 0.5, height: 0.5), scaled: (800, 600), canvas: (800, 600)),
        // Extreme shapes never collapse to zero pixels.
        Case(fit: .inside, box: (10, 10), source: (1000, 1), scaled: (10, 1), canvas: (10, 1)),
        Case(fit: .cover, box: (10, 10), source: (1, 1000), scaled: (1, 1000), canvas: (1, 10)),
        Case(fit: .contain, box: (10, 10), source: (1, 1), scaled: (1, 1), canvas: (10, 10)),
        Case(fit: .contain, box: (10, 10), upscale: true, source: (1, 1), scaled: (10, 10), canvas: (10, 10)),
    ]

    @Test("Scaled and canvas sizes", arguments: cases)
    func sizes(_ c: Case) {
        let g = c.geometry
        #expect(g.scaledWidth == c.scaled.0 && g.scaledHeight == c.scaled.1,
                "scaled \(g.scaledWidth)x\(g.scaledHeight)")
        #expect(g.canvasWidth == c.canvas.0 && g.canvasHeight == c.canvas.1,
                "canvas \(g.canvasWidth)x\(g.canvasHeight)")
    }

    @Test("The region is the crop in source pixels, rounded and kept inside the source")
    func region() {
        let g = Case(fit: .inside, box: Self.none,
                     crop: CropRect(x: 0.333, y: 0.1, width: 0.333, height: 0.9),
                     scaled: (0, 0), canvas: (0, 0)).geometry
        #expect((g.regionX, g.regionY, g.regionWidth, g.regionHeight) == (133, 30, 133, 270))
        let edge = Case(fit: .inside, box: Self.none, crop: CropRect(x: 0.9995, y: 0, width: 0.0005, height: 1),
                        source: (1001, 10), scaled: (0, 0), canvas: (0, 0)).geometry
        #expect(edge.regionX + edge.regionWidth <= 1001)
        #expect(edge.regionWidth >= 1)
        let whole = Case(fit: .inside, box: Self.square, scaled: (0, 0), canvas: (0, 0)).geometry
        #expect((whole.regionX, whole.regionY, whole.regionWidth, whole.regionHeight) == (0, 0, 400, 300))
    }

    @Test("requiredScale is the largest linear scale of the region the output needs")
    func requiredScale() {
        func scale(_ fit: Fit, _ box: (Int?, Int?), upscale: Bool = false) -> Double {
            Case(fit: fit, box: box, upscale: upscale, scaled: (0, 0), canvas: (0, 0)).geometry.requiredScale
        }
        #expect(scale(.inside, Self.square) == 0.5)
        #expect(scale(.inside, Self.wOnly) == 0.25)
        #expect(abs(scale(.cover, Self.square) - 2.0 / 3.0) < 0.002)
        #expect(scale(.fill, (100, 300)) == 1)
        #expect(scale(.none, Self.square) == 1)
        #expect(scale(.inside, Self.big, upscale: true) == 2)
    }
}
