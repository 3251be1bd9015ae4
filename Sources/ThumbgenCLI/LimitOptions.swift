import ArgumentParser
import Thumbgen

extension DecodeStrictness: ExpressibleByArgument {}

/// Flags that bound what one image may cost: pixels, frames, output size, decode strictness,
/// and the extra loaders a user may switch on. `render`, `warm` and `doctor` share them.
struct LimitOptions: ParsableArguments {
    @Option(help: "Pixels one decode may produce (width × height × frames), checked from the header before any decode.")
    var maxPixels = ImagingLimits().maxPixels

    @Option(help: "Frames an animated output may keep; a row asking for more fails with too_large.")
    var maxFrames = ImagingLimits().maxFrames

    @Option(help: "Width or height an output may have at most.")
    var maxOutputSize = ImagingLimits().maxOutputDimension

    @Option(help: "How much damage fails a row: none (grey fill), truncated, error, or warning (sharp's failOn).")
    var decodeStrictness = ImagingLimits().strictness

    @Option(name: .customLong("enable-loader"),
            help: "Also enable this libvips loader (e.g. svgload, pdfload, magickload, jp2kload); repeatable. Off by default: a large attack surface.")
    var extraLoaders: [String] = []

    func validate() throws {
        guard maxPixels > 0, maxFrames > 0, maxOutputSize > 0 else {
            throw ValidationError("--max-pixels, --max-frames and --max-output-size must be positive")
        }
        for loader in extraLoaders where !VipsRuntime.loaderExists(loader, loadingModules: true) {
            throw ValidationError("--enable-loader \(loader): libvips has no such loader (`thumbgen doctor` lists them)")
        }
    }

    /// The limits these flags set; `fetch` supplies the byte limit and the timeout, which
    /// downloads share.
    func limits(fetch: FetchOptions) -> ImagingLimits {
        var limits = ImagingLimits()
        limits.maxPixels = maxPixels
        limits.maxFrames = maxFrames
        limits.maxOutputDimension = maxOutputSize
        limits.maxInputBytes = fetch.maxBytes
        limits.seconds = fetch.timeout
        limits.strictness = decodeStrictness
        return limits
    }
}
