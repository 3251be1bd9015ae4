/// What a source's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Equatable {
    /// The libvips loader that recognised the content (`jpegload`, `pngload`, ...).
    public var loader: String
    /// Width and height of one frame after EXIF orientation is applied.
    public var orientedWidth: Int, orientedHeight: Int
    /// EXIF-style orientation 1–8.
    public var orientation: Int
    /// Frames (pages) in the file: more than one for an animation or a multi-page TIFF.
    public var frames = 1
    /// The page (frame, image) of the file the header describes, counted from 1: its size is
    /// that page's.
    public var page = 1
    /// Whether the pixels are sRGB or grey already, so need no colour conversion (not CMYK,
    /// Lab, scRGB, ...).
    public var isSRGBOrGrey = true
    /// Whether each band value is 8 bits (not 16-bit, float, ...).
    public var isEightBit = true
    /// Whether the last band is alpha.
    public var hasAlpha = false
    /// Whether an ICC profile is embedded.
    public var hasICCProfile = false

    /// The source's format, when thumbgen can write it back (`format=auto`).
    public var format: OutputFormat? { OutputFormat(loader: loader) }

    /// Pixels a decode of `frames` frames produces.
    func pixels(frames: Int) -> Int {
        let (area, overflow) = orientedWidth.multipliedReportingOverflow(by: orientedHeight)
        let (total, overflow2) = area.multipliedReportingOverflow(by: max(1, frames))
        return overflow || overflow2 ? .max : total
    }
}
