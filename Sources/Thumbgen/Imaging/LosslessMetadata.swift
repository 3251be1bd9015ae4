import Foundation

/// Strips metadata from a JPEG or PNG source that is passed through without re-encoding.
///
/// A source already at the target size and format is copied rather than decoded and saved again
/// (no quality loss, no CPU), but outputs must carry no EXIF, XMP, IPTC, comments or ICC. Only
/// the container is edited; the compressed image data is copied byte for byte, so the decoded
/// pixels are the same. Anything this cannot read with certainty gives nil, and the caller
/// re-encodes instead.
///
/// The caller passes through only sources with no ICC profile and no EXIF orientation other than
/// 1 (it re-encodes the others, converting to sRGB and rotating): that is what makes dropping
/// APP2/iCCP and APP1/eXIf lossless for how the image looks.
enum LosslessMetadata {
    /// `data` without metadata, or nil when the file is not one this can strip with certainty.
    static func strippedJPEG(_ data: Data) -> Data? {
        JPEGMetadata.stripped(data)
    }

    /// `data` without metadata, or nil when the file is not one this can strip with certainty
    /// (including an animated PNG, whose frames after the first libvips would not read).
    static func strippedPNG(_ data: Data) -> Data? {
        PNGMetadata.stripped(data)
    }
}
