/// Character data in XML, in both directions: references replaced when reading, markup
/// characters escaped when writing.
enum XMLText {
    /// The predefined entities (XML 1.0, 4.6); no others exist without a DTD, which XMP forbids.
    private static let entities: [String: UInt8] = ["lt": 0x3C, "gt": 0x3E, "amp": 0x26, "quot": 0x22, "apos": 0x27]

    /// `raw` with entity and character references replaced; in an attribute, literal tabs and
    /// line breaks become spaces (attribute-value normalisation, XML 1.0 3.3.3) while
    /// `&#xA;` stays a line break. A reference that cannot be read is kept as written.
    static func decode(_ raw: ArraySlice<UInt8>, attribute: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "&"),
               let semicolon = raw[index..<min(index + 12, raw.endIndex)].firstIndex(of: UInt8(ascii: ";")),
               let replacement = reference(raw[(index + 1)..<semicolon]) {
                output += replacement
                index = semicolon + 1
                continue
            }
            if attribute, byte == 0x09 || byte == 0x0A || byte == 0x0D {
                output.append(0x20)
            } else if !attribute, byte == 0x0D {
                // Line ends are normalised to LF (XML 1.0 2.11): a lone CR becomes LF, CR LF one LF.
                if index + 1 == raw.endIndex || raw[index + 1] != 0x0A { output.append(0x0A) }
            } else {
                output.append(byte)
            }
            index += 1
        }
        return RightsText.decodeUTF8(output)
    }

    /// The UTF-8 of the reference named `name` (`amp`, `#233`, `#xE9`), or nil.
    private static func reference(_ name: ArraySlice<UInt8>) -> [UInt8]? {
        let text = String(decoding: name, as: UTF8.self)
        if let byte = entities[text] { return [byte] }
        guard text.hasPrefix("#") else { return nil }
        let digits = text.dropFirst()
        let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        // NUL and surrogates are not characters; Unicode.Scalar refuses the latter.
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return Array(String(Character(scalar)).utf8)
    }

    /// `text` escaped for element content or a double-quoted attribute value.
    ///
    /// Characters XML 1.0 cannot hold (most C0 controls, U+FFFE, U+FFFF) are dropped. In an
    /// attribute, tabs and line breaks are written as references so that a reader's
    /// normalisation does not turn them into spaces.
    static func escaped(_ text: String, attribute: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where attribute: result += "&quot;"
            case "\t" where attribute: result += "&#x9;"
            case "\n" where attribute: result += "&#xA;"
            case "\r": result += "&#xD;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
