/// Chooses how much a loader may shrink while decoding, given the largest scale any output
/// needs (`ThumbnailGeometry.requiredScale`) and the row's `ShrinkOnLoadMode`, and the density a
/// vector source (PDF, SVG) is drawn at.
///
/// `vips_thumbnail` leaves JPEG at least a factor of two for the final resample: libjpeg's DCT
/// scaling filters less well than the kernel, and the kernel cleans up after it. How much of
/// that headroom a row keeps is its mode's choice (`exact` keeps all of it).
enum ShrinkOnLoad {
    /// The JPEG DCT scaling factor, 1, 2, 4 or 8, for `mode`.
    static func jpegFactor(requiredScale: Double, mode: ShrinkOnLoadMode) -> Int {
        guard requiredScale > 0 else { return 1 }
        let shrink = 1 / requiredScale
        let headroom: (Int) -> Double = { factor in
            switch mode {
            case .exact: return 2
            case .balanced: return factor == 2 ? 1 : 2
            case .fast: return 1
            }
        }
        return [8, 4, 2].first { shrink >= Double($0) * headroom($0) } ?? 1
    }

    /// The WebP decode scale in (0, 1]. libwebp's scaler averages every source pixel as it
    /// decodes, so it needs no headroom: it goes all the way (as `vips_thumbnail` does), which
    /// cut thumbgen's CPU time on the benchmark's 16 large WebPs by about a fifth.
    static func webpScale(requiredScale: Double) -> Double {
        min(1, max(requiredScale, 1e-4))
    }

    /// The scale a PDF or SVG is drawn at, against its size at 72 dpi: exactly the scale its
    /// largest output needs, above 1 too (an `upscale` row), so that the resize after has
    /// almost nothing left to do. Drawing from the vector costs no detail at any scale, so it
    /// needs no headroom (as `vips_thumbnail` does); the bounds are libvips'.
    static func vectorScale(requiredScale: Double) -> Double {
        min(max(requiredScale, 0.001), 100_000)
    }

    /// Whether `loader` draws a vector source (`vectorScale`) rather than decoding pixels.
    static func drawsVector(_ loader: String) -> Bool {
        loader == "pdfload" || loader == "svgload"
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
    static func loadedScale(loader: String, requiredScale: Double, mode: ShrinkOnLoadMode,
                            heifThumbnailScale: Double? = nil) -> Double {
        switch loader {
        case "heifload":
            return heifUsesThumbnail(requiredScale: requiredScale, thumbnailScale: heifThumbnailScale)
                ? heifThumbnailScale ?? 1 : 1
        case "jpegload": return 1 / Double(jpegFactor(requiredScale: requiredScale, mode: mode))
        case "webpload": return webpScale(requiredScale: requiredScale)
        case "pdfload", "svgload": return vectorScale(requiredScale: requiredScale)
        default: return 1
        }
    }
}
