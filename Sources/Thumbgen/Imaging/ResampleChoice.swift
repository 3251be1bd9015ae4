/// How step 2 of a render resamples an image to a smaller size: a box pre-shrink or not, and
/// whether libvips' vector code is on for the kernel reduce. Both follow from the sizes alone,
/// so an output's bytes still depend on its recipe and source alone; libvips' operations and
/// the C resampler (`VipsImageRef.resampledInMemory`) make the same choice from this.
struct ResampleChoice {
    /// Kernel reduces reading fewer pixels than this are built without liborc's vector code:
    /// compiling its programs costs a fixed 0.3–0.4 ms a reduce, more than it saves on a small
    /// image (measured, to JPEG: from 200×125, 0.78 ms in C against 1.08 ms with vector code to
    /// 64 px wide; from 400×250, 0.82–1.05 of the C time; from 800×500, 0.6). The vector and C
    /// reduces round differently, so this line cannot move without changing outputs.
    static let vectorCodeMinimumPixels = 100_000

    /// The box shrink before the kernel reduce (a still image only: a box would straddle
    /// stacked frames), or nil for `vips_resize`.
    let preShrink: BoxPreShrink?
    /// Whether the kernel reduce runs with libvips' vector code (never where
    /// `THUMBGEN_NO_VECTOR` turns it off).
    let vectorCode: Bool

    /// The choice for `width`×`height` to `targetWidth`×`targetHeight` (of `frames` stacked
    /// frames: the heights are the stack's).
    init(width: Int, height: Int, targetWidth: Int, targetHeight: Int, kernel: Kernel, frames: Int) {
        preShrink = frames == 1 ? BoxPreShrink(width: width, height: height, targetWidth: targetWidth,
                                               targetHeight: targetHeight, kernel: kernel) : nil
        let reducedPixels = (width / (preShrink?.horizontal ?? 1)) * (height / (preShrink?.vertical ?? 1))
        vectorCode = reducedPixels >= Self.vectorCodeMinimumPixels && VipsRuntime.vectorCodeAllowed
    }
}
