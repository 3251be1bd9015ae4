import Foundation

/// Where a row's source image lives.
public enum SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// A local file, as an absolute, standardised path.
    case file(String)
    /// An `http` or `https` URL.
    case url(URL)

    /// The path or URL as text.
    public var description: String {
        switch self {
        case .file(let path): return path
        case .url(let url): return url.absoluteString
        }
    }

    /// The source's file name without its extension, for the `{name}` placeholder.
    public var stem: String {
        let stem: String
        switch self {
        case .file(let path): stem = PathText.stem(of: path)
        case .url(let url): stem = (url.lastPathComponent as NSString).deletingPathExtension
        }
        return stem.isEmpty ? "image" : stem
    }
}
