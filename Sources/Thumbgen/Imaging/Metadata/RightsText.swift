import Foundation

/// Text as the older metadata formats store it, and back.
///
/// EXIF ASCII and IPTC-IIM without a declared character set are often written by tools that
/// put in whatever their platform used: UTF-8 today, Latin-1 on older Windows and Mac software.
/// Bytes that are valid UTF-8 are almost never Latin-1 text (its accented letters are single
/// bytes that UTF-8 forbids alone), so trying UTF-8 first and falling back is safe.
enum RightsText {
    /// `bytes` as UTF-8 when valid, else as Latin-1 (every byte is one character).
    static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// `bytes` as UTF-8, with U+FFFD for any invalid sequence: for text declared to be UTF-8.
    static func decodeUTF8<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// `text` without surrounding white space and NULs (C strings' padding), or nil when nothing
    /// is left: an empty field counts as absent, so a later source can fill it.
    static func cleaned(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines.union(["\0"]))
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The UTF-8 of the longest prefix of `text` that fits in `limit` bytes, cut between
    /// characters so that neither a multi-byte sequence nor an accent is split.
    static func utf8Prefix(_ text: String, limit: Int) -> [UInt8] {
        var result: [UInt8] = []
        for character in text {
            let bytes = Array(character.utf8)
            guard result.count + bytes.count <= limit else { break }
            result += bytes
        }
        return result
    }

    /// `text` without NULs, which end a string early in EXIF and C readers.
    static func withoutNUL(_ text: String) -> String {
        text.replacingOccurrences(of: "\0", with: "")
    }
}
