import Foundation

/// The user name and password a URL source carries in its user info
/// (`https://alice:secret@host/a.jpg`). They are taken out of the URL as the row is read and
/// go only into the request, as libcurl's login for the URL's own origin: never into the
/// report, the events, the cache's index, `explain` or a message, which all see the URL
/// without them.
public struct SourceLogin: Sendable, Hashable {
    /// The user name, percent-decoded.
    public var user: String
    /// The password, percent-decoded; empty when the URL gives none.
    public var password: String

    /// A login.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `text` (a `src` cell) without the user info of its URL, and the login that was in it;
    /// the text unchanged and nil when it has none. Read as text, so that a URL too broken to
    /// parse still never shows its password.
    public static func split(_ text: String) -> (shown: String, login: SourceLogin?) {
        guard text.containsBytes("@"), let scheme = text.range(of: "://") else { return (text, nil) }
        let authorityStart = scheme.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" })
            ?? text.endIndex
        guard let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") else { return (text, nil) }
        let info = text[authorityStart..<at]
        let parts = info.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        func decoded(_ part: Substring?) -> String {
            guard let part else { return "" }
            return String(part).removingPercentEncoding ?? String(part)
        }
        let login = SourceLogin(user: decoded(parts.first), password: decoded(parts.count > 1 ? parts[1] : nil))
        return (String(text[..<authorityStart]) + String(text[text.index(after: at)...]), login)
    }
}
