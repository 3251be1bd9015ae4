/// A source opened, oriented and reduced by shrink-on-load, ready for any number of outputs.
///
/// `image` may be lazy (one consumer: pixels stream through the encode) or held in memory
/// (several consumers: decoded once, read by each).
struct DecodedImage: @unchecked Sendable {
    /// The upright pixels at the working resolution, in the source's colour space; an
    /// animation's frames stacked top to bottom.
    let image: VipsImageRef
    /// What the header said about the full-size source.
    let header: ImageHeader
    /// Frames in `image`: 1 unless every frame of an animation was loaded.
    var frames = 1
    /// Whether the pixels were decoded into memory already (so a later failure is not the
    /// source's).
    var isInMemory = false
    /// For pixels held in memory that libvips would have streamed from a loader opened for
    /// one pass: the height of the strips libvips' line cache would have read its vertical
    /// reduce in (`VipsImageRef.sequentialReduceStrip`), so that the C resampler makes the
    /// bytes that stream would have (`tg_resample.h`), whichever rows share the pixels; 0
    /// otherwise (a row at a time).
    var resampleStrip = 0
    /// The file the pixels are read from (a local source, or a remote one's download).
    var path: String?
    /// For lazy pixels: reads the source again on its own and returns its error, or nil when
    /// it decodes cleanly, so that a failed render can say whether the source was at fault.
    var faultCheck: (@Sendable (StageWatch) -> ImagingError?)?

    /// Height of one frame of `image`.
    var frameHeight: Int { image.height / max(1, frames) }

    /// Working pixels per source pixel, horizontally and vertically (1 without shrink-on-load;
    /// the two differ slightly because loaders round partial blocks up).
    var scaleX: Double { Double(image.width) / Double(header.orientedWidth) }
    var scaleY: Double { Double(frameHeight) / Double(header.orientedHeight) }
}
