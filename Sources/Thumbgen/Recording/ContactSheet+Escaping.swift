import Foundation

/// Text and URLs made safe for the page: every id, message and path comes from the user's
/// manifest, so none of it may be read as markup.
extension ContactSheet {
    /// `text` as HTML character data or a quoted attribute value: control characters and long
    /// values as a terminal shows them (`TerminalText`), then the five characters that can end a
    /// text run or an attribute replaced by references.
    static func escaped(_ text: String) -> String {
        HTMLEscaping.escaped(TerminalText.safe(text))
    }

    /// One path segment percent-encoded for a relative URL: only unreserved characters stay, so
    /// that `#`, `?`, `%` and a `:` (which would start a scheme) are not read as URL syntax.
    static func encodedSegment(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `relative` (a `/`-separated path) percent-encoded segment by segment.
    static func encodedPath(_ relative: String) -> String {
        relative.split(separator: "/", omittingEmptySubsequences: false)
            .map { encodedSegment(String($0)) }.joined(separator: "/")
    }

    /// The relative URL from the folder `page` to the folder `target`, ending in `/` (empty when
    /// they are the same folder). Both are resolved to real paths first: `..` climbs the real
    /// folder tree, as the file system does once the browser hands it the path.
    static func relativeURL(from page: URL, to target: URL) -> String {
        let from = realComponents(page), to = realComponents(target)
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        let up = Array(repeating: "..", count: from.count - common)
        let down = to[common...].map(encodedSegment)
        return (up + down).map { $0 + "/" }.joined()
    }

    /// The components of `url`'s absolute path with symbolic links resolved, as far as the
    /// path exists (the output folder may not be made yet); the rest is kept as written.
    static func realComponents(_ url: URL) -> [String] {
        var existing = url.standardizedFileURL.path
        var missing: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved).split(separator: "/").map(String.init)
                return base + missing.reversed()
            }
            let parent = (existing as NSString).deletingLastPathComponent
            guard parent != existing, !parent.isEmpty else {
                return existing.split(separator: "/").map(String.init) + missing.reversed()
            }
            missing.append((existing as NSString).lastPathComponent)
            existing = parent
        }
    }

    /// `bytes` for people: `812 B`, `7.9 KiB`, `1.2 MiB`.
    static func readableBytes(_ bytes: Int) -> String {
        CacheMaintenance.text(bytes: Int64(bytes))
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
