/// The limits that keep hostile or broken images harmless, each a command-line flag.
///
/// The pixel and frame limits are checked from the header, before any pixel is decoded, so a
/// decompression bomb (`lottapixel.jpg` declares 64250×64250) costs a header read.
public struct ImagingLimits: Sendable, Equatable, Codable {
    /// Pixels one decode may produce: width × height × frames loaded (`--max-pixels`). sharp's
    /// `limitInputPixels` default: 16383 × 16383.
    public var maxPixels = 268_402_689
    /// Frames an animated output may keep (`--max-frames`); a row asking for more fails.
    public var maxFrames = 500
    /// Width or height an output may have (`--max-output-size`): WebP's limit, the smallest of
    /// the formats thumbgen writes.
    public var maxOutputDimension = 16_383
    /// Bytes a local source may have (`--max-bytes`, shared with downloads).
    public var maxInputBytes: Int64 = 104_857_600
    /// Seconds one decode, and one encode, may run before it is abandoned (`--timeout`).
    public var seconds = 60.0
    /// How much damage in the data fails a row (`--decode-strictness`).
    public var strictness = DecodeStrictness.error

    /// The defaults documented in docs/images.md, Limits.
    public init() {}
}

/// How strict decoders are about damaged data; libvips' `fail_on` (sharp's `failOn`).
public enum DecodeStrictness: String, Sendable, CaseIterable, Codable {
    /// Decode whatever can be decoded; missing parts come out grey. Never the default.
    case none
    /// Fail truncated files only.
    case truncated
    /// Fail on any decoder error: truncated files, broken compressed streams. The default: it
    /// accepts files whose only fault is a warning (stray bytes before a JPEG marker), which
    /// browsers and Pillow display normally.
    case error
    /// Fail on any warning as well (sharp's default).
    case warning
}
