import ArgumentParser
import Thumbgen

/// Per-format encoder flags; they apply to every row whose output has that format.
struct FormatOptions: ParsableArguments {
    @Flag(help: "Write progressive JPEGs (baseline by default).")
    var jpegProgressive = false

    @Flag(help: "Quantise PNGs to a palette of at most 256 colours; quality then steers the quantiser.")
    var pngPalette = false

    @Option(help: "PNG zlib level, 0 (fastest) to 9 (smallest); 6 by default (thumbgen site's fallbacks: 2).")
    var pngCompression: Int?

    @Option(help: "PNG row filter before zlib: none (the default, as libvips and sharp), sub, up, average, paeth or adaptive (thumbgen site's fallbacks: sub).")
    var pngFilter: PNGFilter?

    @Option(help: "WebP encoder effort, 0 (fastest) to 6 (smallest).")
    var webpEffort = EncodingOptions().webpEffort

    @Option(help: "AVIF encoder effort, 0 (fastest) to 9 (smallest).")
    var avifEffort = EncodingOptions().avifEffort

    @Option(help: "JPEG XL encoder effort, 1 (fastest) to 9 (smallest).")
    var jxlEffort = EncodingOptions().jxlEffort

    @Option(help: "GIF palette effort, 1 (fastest) to 10 (best colours).")
    var gifEffort = EncodingOptions().gifEffort

    @Option(help: "JPEG chroma subsampling: auto (4:2:0 below quality 90, as libvips and sharp) or 444 (none: sharp red text and line art).")
    var jpegSubsample = "auto"

    @Flag(help: "Write lossless WebPs (graphics, screenshots); quality then does not apply.")
    var webpLossless = false

    @Option(help: "Write near-lossless WebPs, preprocessed at this level from 0 (smallest) to 100 (lossless), then encoded losslessly.")
    var webpNearLossless: Int?

    @Flag(help: "Write lossless AVIFs.")
    var avifLossless = false

    @Flag(help: "Write lossless JPEG XLs.")
    var jxlLossless = false

    @Option(help: "The lowest quality the search for a row's max_output_bytes goes to, 1 to 100.")
    var minQuality = EncodingOptions().minQuality

    func validate() throws {
        let ranges: [(String, Int, ClosedRange<Int>)] = [
            ("--webp-effort", webpEffort, 0...6), ("--avif-effort", avifEffort, 0...9),
            ("--jxl-effort", jxlEffort, 1...9), ("--gif-effort", gifEffort, 1...10), ("--min-quality", minQuality, 1...100),
            ("--png-compression", pngCompression ?? EncodingOptions().pngCompression, 0...9),
        ]
        for (flag, value, range) in ranges where !range.contains(value) {
            throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound)")
        }
        guard ["auto", "444"].contains(jpegSubsample) else {
            throw ValidationError("--jpeg-subsample must be auto or 444")
        }
        if let level = webpNearLossless, !(0...100).contains(level) {
            throw ValidationError("--webp-near-lossless must be from 0 to 100")
        }
        if webpLossless, webpNearLossless != nil {
            throw ValidationError("--webp-lossless and --webp-near-lossless are two ways to write a WebP: give one")
        }
    }

    /// The encoder settings these flags describe.
    var encoding: EncodingOptions {
        var encoding = EncodingOptions()
        encoding.jpegProgressive = jpegProgressive
        encoding.pngPalette = pngPalette
        encoding.pngCompression = pngCompression ?? encoding.pngCompression
        encoding.pngFilter = pngFilter ?? encoding.pngFilter
        encoding.webpEffort = webpEffort
        encoding.avifEffort = avifEffort
        encoding.jxlEffort = jxlEffort
        encoding.gifEffort = gifEffort
        encoding.jpegNoSubsampling = jpegSubsample == "444"
        encoding.webpLossless = webpLossless
        encoding.webpNearLossless = webpNearLossless
        encoding.avifLossless = avifLossless
        encoding.jxlLossless = jxlLossless
        encoding.minQuality = minQuality
        return encoding
    }
}

extension PNGFilter: ExpressibleByArgument {}
