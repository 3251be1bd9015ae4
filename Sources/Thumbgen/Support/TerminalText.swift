/// Text from input (manifest cells, paths, URLs, headers, names found in a walk) made safe to
/// show a person: every line thumbgen prints on a terminal, and the contact sheet, pass through
/// it. A hostile manifest could otherwise set the terminal's title (`ESC ] 0 ;`), clear the
/// screen, forge lines, or flood the log with one value. The report, the index and the cache
/// keep values exactly: JSON escapes what it must.
public enum TerminalText {
    /// The most characters one value is shown with; a longer run is cut in its middle.
    public static let longestValue = 200
    /// The most characters one line is shown with.
    public static let longestLine = 2_000

    /// `text` with every control character escaped and every run of more than `longestValue`
    /// characters without a space shortened with an ellipsis, then the whole cut to
    /// `longestLine`. Newlines are kept with `keepingNewlines` (a many-line text such as
    /// `explain`'s), each line then bounded on its own; otherwise they are escaped too.
    public static func safe(_ text: String, keepingNewlines: Bool = false) -> String {
        if keepingNewlines {
            return text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { safe(String($0)) }.joined(separator: "\n")
        }
        // Most lines are short and plain: no copy.
        if text.utf8.count <= longestValue, !text.unicodeScalars.contains(where: needsEscape) { return text }
        var runs: [String] = []
        for run in text.split(separator: " ", omittingEmptySubsequences: false) {
            runs.append(shortened(escaped(Substring(run)), to: longestValue))
        }
        return shortened(runs.joined(separator: " "), to: longestLine)
    }

    /// One value on its own (a path, a URL, a cell): escaped, and shortened to `longestValue`
    /// characters whatever spaces it holds.
    public static func value(_ text: String) -> String {
        shortened(escaped(Substring(text)), to: longestValue)
    }

    /// Whether a scalar would change the terminal's state or fake the text's layout: C0 controls
    /// (with tab and newline), DEL, C1 controls, and the bidirectional overrides and isolates
    /// that reorder what is shown ("Trojan Source").
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `text` with each scalar `needsEscape` names written as `\x1b` (below 0x80) or `\u{85}`.
    static func escaped(_ text: Substring) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            if scalar.value < 0x80 {
                out += "\\x" + hex(scalar.value, digits: 2)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// `text` cut to `limit` characters by dropping its middle: the start and the end (a path's
    /// file name, a URL's last segment) are what tell values apart.
    static func shortened(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        let tail = (limit - 1) / 3
        let head = limit - 1 - tail
        return String(text.prefix(head)) + "…" + String(text.suffix(tail))
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
