import Foundation

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (`CharacterSet.whitespaces`).
    /// Returns at once when there is nothing to trim, which is nearly always: Foundation's
    /// `trimmingCharacters(in:)` bridges through NSString and cost a few percent of a warm run.
    /// The first and last bytes are looked at, not the first and last `Character`s (finding
    /// a grapheme's end costs more): an ASCII byte that is not white space at either end
    /// means no white-space scalar is there to trim.
    var trimmingWhitespace: String {
        let ends = utf8.withContiguousStorageIfAvailable { ($0.first, $0.last) }
        if let (first, last) = ends {
            guard let first, let last else { return "" }
            if Self.isPlainASCII(first) && Self.isPlainASCII(last) { return String(self) }
        }
        return trimmingCharacters(in: .whitespaces)
    }

    /// An ASCII byte other than white space and control characters.
    private static func isPlainASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7f }
}
