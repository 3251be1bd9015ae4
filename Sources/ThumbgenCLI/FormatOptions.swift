import ArgumentParser
import Thumbgen

/// Per-format encoder flags; they apply to every row whose output has that format.
struct FormatOptions: ParsableArguments {
    @Flag(help: "Write progressive JPEGs (baseline by default).")
    var jpegProgressive = false

    @Flag(help: "Quantise PNGs to a palette of at most 256 colours; quality then steers the quantiser.")
    var pngPalette = false

    @Option(help: "WebP encoder effort, 0 (fastest) to 6 (smallest).")
    var webpEffort = EncodingOptions().webpEffort

    @Option(help: "AVIF encoder effort, 0 (fastest) to 9 (smallest).")
    var avifEffort = EncodingOptions().avifEffort

    @Option(help: "JPEG XL encoder effort, 1 (fastest) to 9 (smallest).")
    var jxlEffort = EncodingOptions().jxlEffort

    @Option(help: "GIF palette effort, 1 (fastest) to 10 (best colours).")
    var gifEffort = EncodingOptions().gifEffort

    func validate() throws {
        let ranges: [(String, Int, ClosedRange<Int>)] = [
            ("--webp-effort", webpEffort, 0...6), ("--avif-effort", avifEffort, 0...9),
            ("--jxl-effort", jxlEffort, 1...9), ("--gif-effort", gifEffort, 1...10),
        ]
        for (flag, value, range) in ranges where !range.contains(value) {
            throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// The encoder settings these flags describe.
    var encoding: EncodingOptions {
        var encoding = EncodingOptions()
        encoding.jpegProgressive = jpegProgressive
        encoding.pngPalette = pngPalette
        encoding.webpEffort = webpEffort
        encoding.avifEffort = avifEffort
        encoding.jxlEffort = jxlEffort
        encoding.gifEffort = gifEffort
        return encoding
    }
}
