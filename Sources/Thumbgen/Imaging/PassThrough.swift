import Foundation

/// A source that already is its own thumbnail: the right size, format and colour, upright.
/// Its bytes are copied with only the metadata taken out, so it loses no quality to a second
/// lossy encode and costs no CPU (docs/images.md, Pass-through).
///
/// Anything that would change the pixels rules it out: a crop or resize, a rotation, an
/// embedded ICC profile (its colours must be converted), 16-bit or CMYK data, several frames, a
/// `quality` the row asks for, or an encoder flag that changes that format (progressive JPEG,
/// PNG palette). Formats without a lossless metadata stripper here are always re-encoded.
///
/// The strippers (`JPEGMetadata`, `PNGMetadata`, `WebPMetadata`) edit only the container: the
/// compressed image data is copied byte for byte, and anything they cannot read with
/// certainty gives nil, so the output is encoded instead. Dropping APP2/iCCP and APP1/eXIf is
/// lossless for how the image looks because only sources with no ICC profile and orientation 1
/// pass through.
enum PassThrough {
    /// Whether an output of `spec` as `format`, laid out as `plan`, from a source with `header`
    /// is the source itself.
    static func applies(_ header: ImageHeader, spec: ThumbnailSpec, format: OutputFormat,
                        plan: ThumbnailGeometry) -> Bool {
        guard header.format == format, spec.quality(for: format) == nil, spec.encoding.isDefault(for: format),
              spec.maxOutputBytes == nil, spec.reorientation.isIdentity, spec.sharpening == nil, spec.trimThreshold == nil,
              spec.colour == .srgb, spec.keep.isNone, spec.page == 1,
              header.orientation == 1,
              header.frames == 1, !header.hasICCProfile, header.isEightBit, header.isSRGBOrGrey
        else { return false }
        switch format {
        case .jpeg: guard !spec.encoding.jpegProgressive else { return false }
        case .png: guard !spec.encoding.pngPalette else { return false }
        case .webp: break
        default: return false
        }
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
        case .jpeg: return JPEGMetadata.stripped(data)
        case .png: return PNGMetadata.stripped(data)
        case .webp: return WebPMetadata.strictlyStripped(data)
        default: return nil
        }
    }
}
