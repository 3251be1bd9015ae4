/// A manifest cell's bytes as text. A cell that is not UTF-8 fails its row (a replacement
/// character would name another file, or write one the user never asked for); its text then
/// shows each byte that is not part of a UTF-8 character as `\xff`, so that the report, which
/// is UTF-8 JSON, can show it.
enum CellText {
    /// The text of `bytes`, and whether they were all UTF-8.
    static func decode(_ bytes: ArraySlice<UInt8>) -> (text: String, valid: Bool) {
        if let text = String(validating: bytes, as: UTF8.self) { return (text, true) }
        return (escapingInvalid(bytes), false)
    }

    /// `bytes` with every byte that does not begin a well-formed UTF-8 sequence written `\xNN`.
    static func escapingInvalid(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: replacingInvalid(bytes, prefix: Array("\\x".utf8)), as: UTF8.self)
    }

    /// `bytes` with every byte that does not begin a well-formed UTF-8 sequence written as
    /// `prefix` and its two hex digits.
    static func replacingInvalid(_ bytes: ArraySlice<UInt8>, prefix: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let length = wellFormedLength(bytes, at: index)
            if length > 0 {
                out.append(contentsOf: bytes[index..<index + length])
                index += length
            } else {
                out.append(contentsOf: prefix)
                out.append(contentsOf: hexDigits(bytes[index]))
                index += 1
            }
        }
        return out
    }

    /// The length of the well-formed UTF-8 sequence at `index` (The Unicode Standard, table
    /// 3-7), or 0 when none starts there.
    static func wellFormedLength(_ bytes: ArraySlice<UInt8>, at index: Int) -> Int {
        func byte(_ offset: Int, in range: ClosedRange<UInt8>) -> Bool {
            index + offset < bytes.endIndex && range.contains(bytes[index + offset])
        }
        let tail: ClosedRange<UInt8> = 0x80...0xBF
        switch bytes[index] {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return byte(1, in: tail) ? 2 : 0
        case 0xE0: return byte(1, in: 0xA0...0xBF) && byte(2, in: tail) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return byte(1, in: tail) && byte(2, in: tail) ? 3 : 0
        case 0xED: return byte(1, in: 0x80...0x9F) && byte(2, in: tail) ? 3 : 0
        case 0xF0: return byte(1, in: 0x90...0xBF) && byte(2, in: tail) && byte(3, in: tail) ? 4 : 0
        case 0xF1...0xF3: return byte(1, in: tail) && byte(2, in: tail) && byte(3, in: tail) ? 4 : 0
        case 0xF4: return byte(1, in: 0x80...0x8F) && byte(2, in: tail) && byte(3, in: tail) ? 4 : 0
        default: return 0
        }
    }

    private static func hexDigits(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }
}
