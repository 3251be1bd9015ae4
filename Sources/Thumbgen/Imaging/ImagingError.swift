/// Errors from decoding, processing and encoding images.
public enum ImagingError: Error, Equatable, CustomStringConvertible {
    /// The file is not in any enabled image format (sniffed by content).
    case unsupportedFormat(path: String)
    /// libvips refused an operation; `message` is its error text.
    case libvips(operation: String, message: String)

    /// A readable one-line account of the error.
    public var description: String {
        switch self {
        case .unsupportedFormat(let path):
            return "\(path): not a JPEG, PNG, WebP, GIF, TIFF, HEIF/AVIF or JPEG XL image"
        case .libvips(let operation, let message):
            return "\(operation): \(message)"
        }
    }
}
