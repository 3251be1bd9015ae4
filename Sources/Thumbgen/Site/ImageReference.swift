import Foundation

/// Where an `<img src>` of a page leads: a file of the site, or why it is left alone.
enum ImageReference {
    /// The file `src` names, for a page at `page` (a path relative to the site's folder
    /// `root`, which is absolute and resolved): relative to the page's folder, or to the
    /// site's root when it starts with `/`; the query and fragment dropped and the rest
    /// percent-decoded, as a static server maps a URL to a file. The file must be a regular
    /// file inside `root`, links resolved.
    /// An absolute URL under `baseURL` (the site's own address) is taken as the path after it,
    /// from the site's root.
    static func resolve(_ src: String, page: String, root: String, baseURL: String? = nil) -> Result<String, SkipReason> {
        var trimmed = src.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .failure(.noSource) }
        if let baseURL {
            let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
            if trimmed.lowercased().hasPrefix(base.lowercased()) {
                trimmed = "/" + trimmed.dropFirst(base.count)
            } else if trimmed.hasPrefix("/"), !trimmed.hasPrefix("//"), let prefix = URL(string: base)?.path,
                      prefix.count > 1, trimmed.hasPrefix(prefix.hasSuffix("/") ? prefix : prefix + "/") {
                // A root-relative path on a site served under a folder (`/blog/…`).
                trimmed = "/" + trimmed.dropFirst((prefix.hasSuffix("/") ? prefix : prefix + "/").count)
            }
        }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("data:") || lowered.hasPrefix("blob:") { return .failure(.dataURL) }
        if trimmed.hasPrefix("//") || hasScheme(trimmed) { return .failure(.external) }
        var path = trimmed
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        guard let decoded = path.removingPercentEncoding, !decoded.isEmpty, !decoded.contains("\0") else {
            return .failure(.notFound)
        }
        let folder = (page as NSString).deletingLastPathComponent
        let joined = decoded.hasPrefix("/") ? root + decoded : (root as NSString).appendingPathComponent(folder) + "/" + decoded
        guard let lexical = normalised(joined), isInside(lexical, root) else { return .failure(.outsideSite) }
        var info = stat()
        guard stat(lexical, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.notFound) }
        // A link may lead out of the site; what it leads to is what is read.
        guard let real = realpath(lexical, nil) else { return .failure(.notFound) }
        defer { free(real) }
        let resolved = String(cString: real)
        return isInside(resolved, root) ? .success(resolved) : .failure(.outsideSite)
    }

    /// The folder of the site (relative to `root`, empty for the root) that a page's relative
    /// URLs resolve from when its `<base href>` is `href`: the folder of the URL it names,
    /// relative to the page, to the site's root (`/…`), or under `baseURL`. A base outside the
    /// site (another host, or above its root) is `baseElsewhere`.
    static func baseFolder(_ href: String, page: String, baseURL: String?) -> Result<String, SkipReason> {
        var trimmed = href.trimmingCharacters(in: .whitespacesAndNewlines)
        if let cut = trimmed.firstIndex(where: { $0 == "?" || $0 == "#" }) { trimmed = String(trimmed[..<cut]) }
        if let baseURL {
            let base = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
            if trimmed.lowercased().hasPrefix(base.lowercased()) { trimmed = "/" + trimmed.dropFirst(base.count) }
        }
        if trimmed.hasPrefix("//") || hasScheme(trimmed) { return .failure(.baseElsewhere) }
        guard let decoded = trimmed.removingPercentEncoding else { return .failure(.baseElsewhere) }
        // A URL's folder: what it names up to its last `/` (`/blog` resolves from `/`).
        let joined = decoded.hasPrefix("/") ? decoded : "/" + (page as NSString).deletingLastPathComponent + "/" + decoded
        let folder = joined.hasSuffix("/") ? joined : (joined as NSString).deletingLastPathComponent
        guard let lexical = normalised(folder) else { return .failure(.baseElsewhere) }
        return .success(String(lexical.dropFirst()))
    }

    /// The `http:` or `https:` URL an external `src` names (`//host/…` taken as https), for
    /// `--fetch`; nil for another scheme.
    static func remoteURL(_ src: String) -> String? {
        let trimmed = src.trimmingCharacters(in: .whitespacesAndNewlines)
        let absolute = trimmed.hasPrefix("//") ? "https:" + trimmed : trimmed
        guard let url = URL(string: absolute), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false else { return nil }
        return url.absoluteString
    }

    /// Whether `text` starts with a URL scheme (`https:`, `mailto:`): letters, then letters,
    /// digits, `+`, `-` or `.`, then a colon.
    private static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// `path` (absolute) with `.` and `..` taken out lexically; nil when `..` climbs above `/`.
    private static func normalised(_ path: String) -> String? {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                guard parts.popLast() != nil else { return nil }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func isInside(_ path: String, _ root: String) -> Bool {
        path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }
}
