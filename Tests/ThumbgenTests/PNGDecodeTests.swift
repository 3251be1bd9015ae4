import CPNGDecode
import Foundation
import Testing
@testable import Thumbgen

/// `CPNGDecode`, thumbgen's own PNG reader (`PNGPixels`): its filters against a plain reading
/// of the PNG specification, its pixels against libvips' `pngload` (crafted files and every
/// corpus PNG it takes), the files it must leave to libvips, and a row's bytes the same whether
/// the reader or libvips' stream decoded its source.
@Suite("PNG reader")
struct PNGDecodeTests {
    @Test("Each filter, at 1 to 4 bytes a pixel, undoes what the specification's predictor did; in place too")
    func filters() {
        var random = SeededBytes(seed: 47)
        for bpp in 1...4 {
            for pixels in [1, 7, 33] {
                let count = pixels * bpp
                for filter in 0...4 {
                    for hasAbove in [false, true] {
                        let raw = random.next(count), above = hasAbove ? random.next(count) : nil
                        let expected = ReferencePNG.unfilter(filter, raw: raw, above: above, bpp: bpp)
                        var out = [UInt8](repeating: 0, count: count)
                        let status = raw.withUnsafeBufferPointer { r in
                            Self.unfilter(filter, r.baseAddress!, above, &out, count, bpp)
                        }
                        #expect(status == 0 && out == expected, "filter \(filter), \(bpp) bytes a pixel, \(pixels) pixels")
                        // In place, as the decoder does it: the output starts `gap` bytes before the input.
                        for gap in [1, 2, 5] {
                            var buffer = [UInt8](repeating: 0, count: gap) + raw
                            let inPlace = buffer.withUnsafeMutableBufferPointer { b in
                                Self.unfilter(filter, b.baseAddress! + gap, above, b.baseAddress!, count, bpp)
                            }
                            #expect(inPlace == 0 && Array(buffer.prefix(count)) == expected,
                                    "filter \(filter) in place, gap \(gap), \(bpp) bytes a pixel")
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: 6)
        #expect(Self.unfilter(5, [UInt8](repeating: 0, count: 6), nil, &out, 6, 3) == -1, "filter type 5 taken")
        #expect(Self.unfilter(1, [UInt8](repeating: 0, count: 6), nil, &out, 5, 3) == -1, "a partial pixel taken")
    }

    @Test("Crafted PNGs of every colour type this reader takes decode to their pixels, as libvips reads them")
    func craftedFiles() throws {
        let folder = try TemporaryDirectory("png-reader")
        var random = SeededBytes(seed: 45)
        for (colour, bands) in [(0, 1), (2, 3), (4, 2), (6, 4)] {
            let file = ReferencePNG(width: 37, height: 23, colour: colour, pixels: random.next(37 * 23 * bands))
            let url = try folder.write(Data(file.bytes()), to: "c\(colour).png")
            let decoded = try #require(Self.decode(url.path), "colour type \(colour) refused")
            #expect(decoded.pixels == file.pixels && decoded.bands == bands, "colour type \(colour)")
            let vips = try PixelImage.load(url)
            #expect(vips.pixels == decoded.pixels && vips.bands == bands, "colour type \(colour): libvips reads otherwise")
        }
    }

    @Test("Files this reader must leave to libvips are refused, and the row still renders through libvips")
    func refusals() throws {
        let folder = try TemporaryDirectory("png-refusals")
        var random = SeededBytes(seed: 44)
        let base = ReferencePNG(width: 20, height: 10, colour: 2, pixels: random.next(20 * 10 * 3))
        #expect(Self.decode(try folder.write(Data(base.bytes()), to: "base.png").path) != nil)
        var cases: [(String, [UInt8], renders: Bool)] = []
        func variant(_ name: String, renders: Bool, _ change: (inout ReferencePNG) -> Void) {
            var file = base
            change(&file)
            cases.append((name, file.bytes(), renders))
        }
        variant("16K window", renders: true) { $0.window = 6 }
        variant("filter type 5", renders: false) { $0.filters[3] = 5 }
        variant("bad IDAT CRC", renders: false) { $0.breakIDATCRC = true }
        variant("data after the zlib stream", renders: false) { $0.trailingStream = [0, 0, 0] }
        variant("a row short", renders: false) { $0.dropLastRow = true }
        variant("tRNS", renders: true) { $0.extraChunks = [("tRNS", [0, 1, 0, 2, 0, 3])] }
        variant("unknown critical chunk", renders: false) { $0.extraChunks = [("ABCD", [1])] }
        variant("interlaced", renders: false) { $0.interlace = 1 }
        variant("16 bits", renders: false) { $0.bitDepth = 16 }
        variant("palette", renders: false) { $0.colour = 3 }
        var truncated = base.bytes()
        truncated.removeLast(12)
        cases.append(("no IEND", truncated, false))
        for (name, bytes, renders) in cases {
            let url = try folder.write(Data(bytes), to: "\(name.replacingOccurrences(of: " ", with: "-")).png")
            #expect(Self.decode(url.path) == nil, "\(name): taken")
            guard renders else { continue }
            let h = try DecodeSharingTests.Harness()
            h.pipeline.submit(h.request(2, .file(url.path), width: 8, out: "x.png"))
            h.pipeline.waitUntilFinished()
            #expect(h.results.map(\.status) == [.written], "\(name): \(h.results)")
        }
        #expect(Self.decode(try folder.write(Data(base.bytes()), to: "b.png").path, maxBytes: 599) == nil,
                "600 bytes of pixels taken under a 599-byte limit")
    }

    @Test("Every corpus PNG this reader takes has libvips' pixels")
    func corpus() throws {
        guard let corpora = TestPaths.corpora else {
            print("skipped: ../shared/corpora is absent")
            return
        }
        let files = try FileManager.default.subpathsOfDirectory(atPath: corpora.path)
            .filter { $0.lowercased().hasSuffix(".png") }.sorted()
        var taken = 0
        for file in files {
            let url = corpora.appendingPathComponent(file)
            guard let decoded = Self.decode(url.path) else { continue }
            taken += 1
            let vips = try PixelImage.load(url)
            #expect(vips.pixels == decoded.pixels && vips.width == decoded.width && vips.bands == decoded.bands,
                    "\(file): libvips reads other pixels")
        }
        #expect(taken >= 100, "only \(taken) of \(files.count) corpus PNGs taken")
    }

    @Test("A row's bytes are the same whether this reader or libvips' stream decoded its PNG")
    func resampledAsStreamed() throws {
        let folder = try TemporaryDirectory("png-stream")
        var random = SeededBytes(seed: 46)
        for (colour, bands, format) in [(2, 3, "jpg"), (6, 4, "webp")] {
            var file = ReferencePNG(width: 1600, height: 1203, colour: colour,
                                    pixels: random.next(1600 * 1203 * bands))
            let taken = try folder.write(Data(file.bytes()), to: "taken\(colour).png")
            // A 16 KiB window (the stream is stored blocks: no distance at all) is left to libvips.
            file.window = 6
            let streamed = try folder.write(Data(file.bytes()), to: "streamed\(colour).png")
            #expect(Self.decode(taken.path) != nil && Self.decode(streamed.path) == nil)
            // A lone row of each source (a first run's shape), then three sizes of each sharing
            // their decode.
            for widths in [[256], [256, 100, 1000]] {
                let h = try DecodeSharingTests.Harness()
                for (index, width) in widths.enumerated() {
                    for (name, url) in [("t", taken), ("s", streamed)] {
                        h.pipeline.submit(h.request(2 * index + (name == "t" ? 2 : 3), .file(url.path), width: width,
                                                    out: "\(name)\(colour)-\(width).\(format)"))
                    }
                }
                h.pipeline.waitUntilFinished()
                #expect(h.results.allSatisfy { $0.status == .written }, "\(h.results)")
                for width in widths {
                    let t = try Data(contentsOf: h.folder.file("out/t\(colour)-\(width).\(format)"))
                    let s = try Data(contentsOf: h.folder.file("out/s\(colour)-\(width).\(format)"))
                    #expect(t == s, "colour type \(colour) at \(width) px among \(widths): the reader's output differs from the stream's")
                }
            }
        }
    }

    // MARK: - Helpers

    /// `tg_png_decode_file`'s pixels, or nil when it leaves the file to libvips.
    static func decode(_ path: String, maxBytes: Int = PNGPixels.largestBytes)
        -> (pixels: [UInt8], width: Int, bands: Int)?
    {
        var decoded = tg_png_pixels()
        guard tg_png_decode_file(path, maxBytes, &decoded) == 0 else { return nil }
        defer { free(decoded.pixels) }
        let count = Int(decoded.width) * Int(decoded.height) * Int(decoded.bands)
        return ([UInt8](UnsafeBufferPointer(start: decoded.pixels, count: count)), Int(decoded.width), Int(decoded.bands))
    }

    static func unfilter(_ filter: Int, _ raw: UnsafePointer<UInt8>, _ above: [UInt8]?, _ out: UnsafeMutablePointer<UInt8>,
                         _ count: Int, _ bpp: Int) -> Int32 {
        if let above {
            return above.withUnsafeBufferPointer { tg_png_unfilter_row(Int32(filter), raw, $0.baseAddress, out, count, Int32(bpp)) }
        }
        return tg_png_unfilter_row(Int32(filter), raw, nil, out, count, Int32(bpp))
    }
}
