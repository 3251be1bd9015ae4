import Foundation

/// One group's decode: streamed through its row's render, or held in memory (rows that read it
/// in more than one way, or a lone small JPEG's), resampled as libvips' stream would have been.
extension SourceRender {
    /// Whether a lone row's decode is worth holding in memory: a JPEG's decode of one frame,
    /// small enough (`lonelyDecodeBytes`), streamed from a loader opened for one pass (so
    /// that the C resampler makes the bytes libvips' streamed resample would: `decode`), for
    /// a row the C resampler then takes (not `nearest`, not growing, a libvips it agrees
    /// with): held for libvips' own resample, the pixels would be read in other regions than
    /// the stream's, for nothing. Held, a small JPEG's row spends no time building libvips'
    /// resample operations nor in their scalar vertical loop (a fifth of its time,
    /// `docs/performance.md`).
    static func holdsAlone(_ decoded: DecodedImage, plan: ThumbnailGeometry, kernel: Kernel) -> Bool {
        let image = decoded.image
        return decoded.frames == 1 && decoded.header.loader == "jpegload" && image.isSequential
            && image.width * image.height * image.bands <= lonelyDecodeBytes
            && ThumbnailRenderer.resamplesInC(decoded, plan: plan, kernel: kernel)
    }

    /// The largest decode a lone row holds in memory (`holdsAlone`): 16 MiB, a 2,300-pixel
    /// square of RGB.
    static let lonelyDecodeBytes = 16 << 20

    /// Decodes `opened` for one group, into memory when `holdsInMemory` says so (its rows read
    /// its pixels in more than one way, or `holdsAlone`). Pixels held that libvips would have
    /// streamed from a loader opened for one pass are resampled as that stream would have
    /// been (`DecodedImage.resampleStrip`), so that a row's bytes are the same whether its
    /// decode is held or not, shared or not.
    func decode(_ opened: SourceDecoder.OpenedSource, scale: Double, shrinkOnLoad: ShrinkOnLoadMode,
                allFrames: Bool, src: String, watch: StageWatch,
                holdsInMemory: (DecodedImage) -> Bool) -> Result<DecodedImage, ThumbnailFailure>
    {
        do {
            var decoded = try decoder.decode(opened, requiredScale: scale, shrinkOnLoad: shrinkOnLoad,
                                             allFrames: allFrames)
            if !decoded.isInMemory, holdsInMemory(decoded) {
                let sequential = decoded.image.isSequential
                let own = try decoded.image.copied()
                watch.enter("decode", evaluating: own)
                let pixels = try own.copiedToMemory()
                watch.enter("decode")
                decoded = DecodedImage(image: pixels, header: opened.header, frames: decoded.frames, isInMemory: true,
                                       resampleStrip: sequential ? VipsImageRef.sequentialReduceStrip : 0,
                                       path: decoded.path)
            }
            if !decoded.isInMemory, let path = decoded.path {
                // Lazy pixels fail in the render when the source is broken; the render then
                // asks this whether the source is at fault, by reading it again on its own.
                let decoder = decoder
                let page = opened.header.page
                decoded.faultCheck = { watch in decoder.decodeError(path: path, page: page, watch: watch) }
            }
            return .success(decoded)
        } catch {
            return .failure(.imaging(error, src: src, stage: .decodeFailed))
        }
    }
}
