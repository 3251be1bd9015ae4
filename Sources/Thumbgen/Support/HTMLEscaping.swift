/// Text made safe inside HTML: the five characters that can end a text run or a quoted
/// attribute value replaced by their references.
enum HTMLEscaping {
    /// `text` as HTML character data or a double- or single-quoted attribute value.
    static func escaped(_ text: String) -> String {
        // Most values need nothing: skip the copy.
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 })
        else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
