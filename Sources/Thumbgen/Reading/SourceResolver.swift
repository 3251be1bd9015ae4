import Foundation

/// Interprets a `src` cell: a path relative to the manifest's folder, an absolute path, a
/// `file://` URL, or an `http(s)://` URL.
struct SourceResolver {
    /// The folder relative paths are resolved against.
    var baseDirectory: String

    /// The source location `text` names; the error names the row and says what is accepted.
    func resolve(_ text: String, row: Int) throws(RowError) -> SourceLocation {
        func fail(_ reason: String) -> RowError {
            RowError(row: row, column: "src", value: text, reason: reason)
        }
        if let colon = text.firstIndex(of: ":"), text[..<colon].count > 1,
           text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            let scheme = text[..<colon].lowercased()
            guard let url = URL(string: text) else { throw fail("is not a valid URL") }
            switch scheme {
            case "file":
                guard url.host == nil || url.host == "" || url.host == "localhost" else {
                    throw fail("names a file on another host; only local file:// URLs are read")
                }
                return .file(url.standardizedFileURL.path)
            case "http", "https":
                guard let host = url.host, !host.isEmpty else { throw fail("has no host") }
                return .remote(url)
            default:
                throw fail("uses the scheme '\(scheme)'; only http, https and file are accepted")
            }
        }
        let absolute = text.hasPrefix("/") ? text : baseDirectory + "/" + text
        // Already standard (no `.`, `..` or empty component): skip URL's standardisation,
        // which is most of the cost of a row in a warm run.
        let components = absolute.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        if !components.contains(where: { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }) {
            return .file(absolute)
        }
        return .file(URL(fileURLWithPath: absolute).standardizedFileURL.path)
    }
}
