/// Errors from decoding, processing and encoding images.
public enum ImagingError: Error, Equatable, CustomStringConvertible {
    /// The file is not in any enabled image format (sniffed by content).
    case unsupportedFormat(path: String)
    /// libvips refused an operation; `message` is its error text.
    case libvips(operation: String, message: String)
    /// The image is over one of `ImagingLimits`; `reason` says which, with the flag to raise.
    case overLimit(reason: String)
    /// A decode or encode ran past `--timeout` and was stopped.
    case timedOut(operation: String, seconds: Double)
    /// The encoded output is `bytes` long, over its `limit`, at the lowest quality tried
    /// (`quality`; nil for a format without one).
    case overBudget(bytes: Int, limit: Int, quality: Int?)
    /// The row asked for page `page` (counted from 1) of a source with only `pages`.
    case pageOutOfRange(page: Int, pages: Int)

    /// A readable one-line account of the error.
    public var description: String {
        switch self {
        case .unsupportedFormat(let path):
            return "\(path): not a JPEG, PNG, WebP, GIF, TIFF, HEIF/AVIF or JPEG XL image"
        case .libvips(let operation, let message):
            return "\(operation): \(message)"
        case .overLimit(let reason):
            return reason
        case .timedOut(let operation, let seconds):
            return "\(operation) ran past the \(seconds.formatted()) s limit (--timeout) and was stopped"
        case .overBudget(let bytes, let limit, let quality):
            return OutputOverBudget(bytes: bytes, limit: limit, quality: quality).description
        case .pageOutOfRange(let page, let pages):
            return "page \(page) is past the end: the source has \(pages) page\(pages == 1 ? "" : "s") (column page)"
        }
    }
}
