import Foundation

/// The hosts a netrc file has an entry for (`machine NAME`, or any host with `default`):
/// enough to know which transfers carry its credentials, which libcurl then reads from it
/// (`CURLOPT_NETRC_FILE`). Logins and passwords are skipped, never kept.
public struct NetrcHosts: Sendable, Equatable {
    /// The file.
    public var path: String
    /// Hosts named by `machine`, lowercased.
    public var machines: Set<String>
    /// Whether a `default` entry covers every other host.
    public var hasDefault: Bool

    /// The hosts of the netrc at `path`; nil when it cannot be read.
    public init?(path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        self.init(text: text, path: path)
    }

    /// The hosts named in `text`, read from `path`.
    public init(text: String, path: String) {
        self.path = path
        machines = []
        hasDefault = false
        // Split as libcurl does, at the bytes C isspace() takes (vertical tab and form feed
        // too), not at Characters: "\r\n", or a space and a combining mark, is one Character.
        let separators: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"]
        var tokens = Self.withoutMacros(text).unicodeScalars.split(whereSeparator: separators.contains)
            .map { String(Substring($0)) }[...]
        while let token = tokens.popFirst() {
            switch token {
            case "machine": if let name = tokens.popFirst() { machines.insert(name.lowercased()) }
            case "default": hasDefault = true
            case "login", "password", "account": _ = tokens.popFirst()
            default: continue
            }
        }
    }

    /// `text` without its `macdef` lines and their bodies (up to a blank line): none of a
    /// macro is a host.
    private static func withoutMacros(_ text: String) -> String {
        var kept: [Substring] = [], inMacro = false
        // "\r\n" is one Character: split at it too, or a CRLF file's lines join their tokens.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            if inMacro { inMacro = !line.trimmingCharacters(in: .whitespaces).isEmpty; continue }
            if line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first == "macdef" { inMacro = true; continue }
            kept.append(line)
        }
        return kept.joined(separator: "\n")
    }

    /// Whether the netrc has a login for `host`.
    func covers(_ host: String) -> Bool { hasDefault || machines.contains(host) }
}
