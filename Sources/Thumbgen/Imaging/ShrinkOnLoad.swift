/// Chooses how much a loader may shrink while decoding, given the largest scale any output
/// needs (`ThumbnailGeometry.requiredScale`).
///
/// Like `vips_thumbnail`, it leaves at least a factor of two for the final resample:
/// shrink-on-load is a box filter that adds aliasing, and the kernel cleans it up.
enum ShrinkOnLoad {
    /// The JPEG DCT scaling factor: 1, 2, 4 or 8.
    static func jpegFactor(requiredScale: Double) -> Int {
        guard requiredScale > 0 else { return 1 }
        let shrink = 1 / requiredScale
        if shrink >= 16 { return 8 }
        if shrink >= 8 { return 4 }
        if shrink >= 4 { return 2 }
        return 1
    }

    /// The WebP decode scale in (0, 1]: libwebp scales continuously while decoding.
    static func webpScale(requiredScale: Double) -> Double {
        min(1, max(requiredScale * 2, 1e-4))
    }
}
