import Foundation

/// A source that already is its own thumbnail: the right size, format and colour, upright.
/// Its bytes are copied with only the metadata taken out, so it loses no quality to a second
/// lossy encode and costs no CPU (README.md, "What it does to images", Pass-through).
///
/// Anything that would change the pixels rules it out: a crop or resize, a rotation, an
/// embedded ICC profile (its colours must be converted), 16-bit or CMYK data, several frames, a
/// `quality` the row asks for, or an encoder flag that changes that format (progressive JPEG,
/// PNG palette). Formats without a lossless metadata stripper here are always re-encoded.
enum PassThrough {
    /// Whether an output of `spec` as `format` from a source with `header` is the source itself.
    static func applies(_ header: ImageHeader, spec: ThumbnailSpec, format: OutputFormat) -> Bool {
        guard header.format == format, spec.quality == nil, header.orientation == 1,
              header.frames == 1, !header.hasICCProfile, header.isEightBit, header.isSRGBOrGrey
        else { return false }
        switch format {
        case .jpeg: guard !spec.encoding.jpegProgressive else { return false }
        case .png: guard !spec.encoding.pngPalette else { return false }
        case .webp: break
        default: return false
        }
        let plan = ThumbnailGeometry(sourceWidth: header.orientedWidth,
                                     sourceHeight: header.orientedHeight, spec: spec)
        return plan.regionX == 0 && plan.regionY == 0
            && plan.regionWidth == Double(header.orientedWidth)
            && plan.regionHeight == Double(header.orientedHeight)
            && plan.scaledWidth == header.orientedWidth && plan.scaledHeight == header.orientedHeight
            && plan.canvasWidth == header.orientedWidth && plan.canvasHeight == header.orientedHeight
    }

    /// The source's bytes at `path` without metadata, or nil when they cannot be read or
    /// stripped with certainty (the caller then encodes as usual).
    static func bytes(of path: String, format: OutputFormat) -> Data? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        switch format {
        case .jpeg: return LosslessMetadata.strippedJPEG(data)
        case .png: return LosslessMetadata.strippedPNG(data)
        case .webp: return WebPMetadata.strictlyStripped(data)
        default: return nil
        }
    }
}
