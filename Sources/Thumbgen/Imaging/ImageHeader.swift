/// What a source's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Equatable {
    /// The libvips loader that recognised the content (`jpegload`, `pngload`, ...).
    public var loader: String
    /// Width and height after EXIF orientation is applied.
    public var orientedWidth: Int, orientedHeight: Int
    /// EXIF-style orientation 1–8.
    public var orientation: Int

    /// The source's format, when thumbgen can write it back (`format=auto`).
    public var format: OutputFormat? { OutputFormat(loader: loader) }
}
