/// Chooses how much a loader may shrink while decoding, given the largest scale any output
/// needs (`ThumbnailGeometry.requiredScale`).
///
/// Like `vips_thumbnail`, it leaves JPEG at least a factor of two for the final resample:
/// libjpeg's DCT scaling is a box filter that adds aliasing, and the kernel cleans it up.
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

    /// The WebP decode scale in (0, 1]. libwebp's scaler averages every source pixel as it
    /// decodes, so it needs no headroom: it goes all the way (as `vips_thumbnail` does), which
    /// cut thumbgen's CPU time on the benchmark's 16 large WebPs by about a fifth.
    static func webpScale(requiredScale: Double) -> Double {
        min(1, max(requiredScale, 1e-4))
    }

    /// Whether a HEIF's embedded thumbnail, `thumbnailScale` of the primary image's size, is
    /// big enough for `requiredScale`. It is a properly downsampled image already, so unlike
    /// JPEG's DCT scaling it needs no headroom (as `vips_thumbnail` does).
    static func heifUsesThumbnail(requiredScale: Double, thumbnailScale: Double?) -> Bool {
        guard let thumbnailScale, thumbnailScale < 1 else { return false }
        return requiredScale <= thumbnailScale
    }

    /// The fraction of its full size at which `loader` decodes a source that must reach
    /// `requiredScale`: two rows with the same value decode to the same pixels. Rows share a
    /// decode only when their values agree, so that a row's bytes never depend on which other
    /// rows happened to share its source's decode (the cache keys outputs by source and recipe
    /// alone).
    static func loadedScale(loader: String, requiredScale: Double, heifThumbnailScale: Double? = nil) -> Double {
        switch loader {
        case "heifload":
            return heifUsesThumbnail(requiredScale: requiredScale, thumbnailScale: heifThumbnailScale)
                ? heifThumbnailScale ?? 1 : 1
        case "jpegload": return 1 / Double(jpegFactor(requiredScale: requiredScale))
        case "webpload": return webpScale(requiredScale: requiredScale)
        default: return 1
        }
    }
}
