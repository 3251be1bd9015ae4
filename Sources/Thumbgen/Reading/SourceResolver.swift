import Foundation

/// Interprets a `src` cell: a path relative to the manifest's folder, an absolute path, a
/// `file://` URL, an `http(s)://` URL, or an `s3://bucket/key` object.
struct SourceResolver {
    /// The folder relative paths are resolved against.
    var baseDirectory: String

    /// The scheme of `text`, lowercased, if it starts with one: two or more letters, digits,
    /// `+`, `-` or `.` before a colon (one letter is a Windows drive, not a scheme). Sharding
    /// hashes by it too (`SourceIdentity`), so the two cannot disagree.
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let head = text[..<colon]
        guard head.count > 1, head.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            return nil
        }
        return head.lowercased()
    }

    /// The source location `text` names; the error names the row and says what is accepted.
    func resolve(_ text: String, row: Int) throws(RowError) -> SourceLocation {
        func fail(_ reason: String) -> RowError {
            RowError(row: row, column: "src", value: text, reason: reason)
        }
        if let scheme = Self.scheme(of: text) {
            guard let url = URL(string: text) else { throw fail("is not a valid URL") }
            switch scheme {
            case "file":
                guard url.host == nil || url.host == "" || url.host == "localhost" else {
                    throw fail("names a file on another host; only local file:// URLs are read")
                }
                return .file(url.standardizedFileURL.path)
            case "http", "https":
                guard let host = url.host, !host.isEmpty else { throw fail("has no host") }
                return .url(url)
            case "s3":
                // Fetched from S3 signed with SigV4 (`S3Access`): s3://BUCKET/KEY.
                guard let bucket = url.host, !bucket.isEmpty, url.path.count > 1 else {
                    throw fail("must be s3://BUCKET/KEY")
                }
                return .url(url)
            default:
                throw fail("uses the scheme '\(scheme)'; only http, https, s3 and file are accepted")
            }
        }
        let absolute = text.hasPrefix("/") ? text : baseDirectory + "/" + text
        // Already standard (no `.`, `..` or empty component): skip URL's standardisation,
        // which is most of the cost of a row in a warm run.
        if Self.isStandard(absolute) { return .file(absolute) }
        return .file(URL(fileURLWithPath: absolute).standardizedFileURL.path)
    }

    /// Whether the absolute path `path` has no empty, `.` or `..` component, read byte by
    /// byte (splitting it cost an array per row).
    static func isStandard(_ path: String) -> Bool {
        var length = 0, dots = 0, first = true
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if !first && (length == 0 || dots == length && dots <= 2) { return false }
                first = false
                length = 0
                dots = 0
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        // As splitting at "/" and dropping the first piece: a path without one has nothing left.
        return first || !(length == 0 || dots == length && dots <= 2)
    }
}
