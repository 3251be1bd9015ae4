import Foundation

/// Encodes an image into a file format's bytes, in memory, with all metadata stripped but what
/// the row keeps (`OutputMetadata`).
///
/// This is where libvips evaluates the lazy pipeline, so nearly all CPU time is spent here.
struct ImageEncoder: Sendable {
    /// The quality used when a row gives none, per format: sharp's defaults, which users of
    /// sharp and imgproxy expect (JPEG XL: libjxl's "visually lossless" distance 1.0 is about
    /// quality 90). PNG uses it only for `--png-palette`; GIF and TIFF not at all.
    static func defaultQuality(for format: OutputFormat) -> Int {
        switch format {
        case .avif: return 50
        case .jxl: return 90
        case .png: return 100
        default: return 80
        }
    }

    /// The most pixels a decoded source may have for its JPEG outputs to be evaluated on the
    /// calling thread (`tg_jpeg_write`) rather than through jpegsave's threads. Measured on
    /// this machine, one job in one process, against jpegsave: 2,006 JPEGs of 800×500, 29%
    /// less CPU; 16 large WebPs (decoded at about 256 px) 5% less; 55 JPEG wallpapers decoded at
    /// ⅛, level; 47 PNG wallpapers decoded whole (2–15 MP), 8–12% more, whatever the strip
    /// height (the region buffers upstream are allocated and cleared more often: `memset` went
    /// from 1.5% to 3.9% of the samples).
    static let callingThreadMaximumSourcePixels = 1_000_000

    /// Encodes `image` as `format` with `options`; `quality` nil means the format's default.
    /// `sourcePixels`, the decoded source's pixel count, chooses how a JPEG is evaluated
    /// (`callingThreadMaximumSourcePixels`); the bytes are the same either way. `watch` bounds
    /// the encode and stops it when the run is cancelled.
    /// With `maxBytes`, an output over it is encoded again at lower qualities (`fitting`).
    /// `metadata` goes into the file: through the saver for JPEG XL, AVIF and TIFF (a profile
    /// only), spliced into the saver's bytes for JPEG, PNG and WebP (`MetadataSplicer`).
    func encode(_ image: VipsImageRef, as format: OutputFormat, quality: Int?,
                options: EncodingOptions, maxBytes: Int? = nil, sourcePixels: Int = .max,
                metadata: OutputMetadata = .none, watch: StageWatch) throws(ImagingError) -> Data
    {
        let q = quality ?? Self.defaultQuality(for: format)
        // The copy is this encode's own: the kill stops exactly this evaluation, even when
        // `image` is a decoded image other rows read too.
        var image = try image.withoutMetadata()
        let spliced = ThumbnailSpec.metadataFormats.contains(format)
        if !spliced, let icc = metadata.icc { image = try image.withICCProfile(icc) }
        // A search encodes several times: the pixels are made once, not once per encode.
        if maxBytes != nil { image = try image.copiedToMemory() }
        watch.enter("encode", evaluating: image)
        let onCallingThread = sourcePixels <= Self.callingThreadMaximumSourcePixels
        let encoded = { (quality: Int) throws(ImagingError) -> Data in
            let data = try image.saved(with: Self.saver(for: format, quality: quality, options: options),
                                       operation: "\(format.rawValue)save", onCallingThread: onCallingThread,
                                       stripping: spliced || metadata.icc == nil)
            let stripped = format == .webp ? WebPMetadata.stripped(data) : data
            guard spliced, !metadata.isEmpty else { return stripped }
            guard let embedded = MetadataSplicer.embedding(metadata, in: stripped, format: format) else {
                throw .libvips(operation: "\(format.rawValue)save", message: "the encoder's bytes could not take the kept metadata")
            }
            return embedded
        }
        guard let maxBytes else { return try encoded(q) }
        return try Self.fitting(maxBytes, from: q, floor: options.minQuality,
                                searchable: Self.hasQuality(format, options: options), encode: encoded)
    }

    /// Encodes searched at most this many times for one output's `max_output_bytes`.
    static let maximumEncodes = 6

    /// The encode at `quality` if it fits in `maxBytes`, else the highest quality down to
    /// `floor` that fits, found by bisection (`maximumEncodes` encodes at most: `quality`, then
    /// `floor`, which must fit, then halves between); throws `overBudget` when even `floor`
    /// does not fit, or the format has no quality to lower (`searchable` false).
    static func fitting(_ maxBytes: Int, from quality: Int, floor: Int, searchable: Bool,
                        encode: (Int) throws(ImagingError) -> Data) throws(ImagingError) -> Data {
        let first = try encode(quality)
        guard first.count > maxBytes else { return first }
        guard searchable else { throw .overBudget(bytes: first.count, limit: maxBytes, quality: nil) }
        guard quality > floor else { throw .overBudget(bytes: first.count, limit: maxBytes, quality: quality) }
        var best = try encode(floor)
        guard best.count <= maxBytes else { throw .overBudget(bytes: best.count, limit: maxBytes, quality: floor) }
        var (low, high) = (floor + 1, quality - 1)
        var encodes = 2
        while low <= high, encodes < maximumEncodes {
            let middle = (low + high + 1) / 2
            let data = try encode(middle)
            encodes += 1
            if data.count <= maxBytes {
                best = data
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }

    /// Whether `format`'s size follows its quality: not PNG (a palette's aside), GIF, TIFF, nor
    /// a lossless encode.
    static func hasQuality(_ format: OutputFormat, options: EncodingOptions) -> Bool {
        switch format {
        case .jpeg, .webp, .avif, .jxl: !options.isLossless(format)
        case .png: options.pngPalette
        case .gif, .tiff: false
        }
    }

    /// The saver and settings that write `format`.
    private static func saver(for format: OutputFormat, quality: Int, options: EncodingOptions) -> VipsSaver {
        switch format {
        case .jpeg: return .jpeg(quality: quality, progressive: options.jpegProgressive,
                                 noSubsampling: options.jpegNoSubsampling)
        case .png: return .png(compression: options.pngCompression, filter: options.pngFilter,
                               palette: options.pngPalette, quality: quality)
        case .webp:
            // Near-lossless takes its level where the quality would go.
            return .webp(quality: options.webpNearLossless ?? quality, effort: options.webpEffort,
                         lossless: options.webpLossless, nearLossless: options.webpNearLossless != nil)
        case .avif: return .avif(quality: quality, effort: options.avifEffort, lossless: options.avifLossless)
        case .jxl: return .jxl(quality: quality, effort: options.jxlEffort, lossless: options.jxlLossless)
        case .gif: return .gif(effort: options.gifEffort)
        case .tiff: return .tiff
        }
    }
}
