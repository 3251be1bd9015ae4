/// The paths an `out` template can still render to before the output is made: `{name}`,
/// `{fit}` and `{row}` are known from the row, while `{w}`, `{h}`, `{ext}` and `{hash8}` are
/// known only once the output is encoded. Two rows whose patterns cannot produce the same path
/// can never collide, so neither has to wait for the other (`OutputClaims`).
struct OutputPathPattern: Sendable {
    /// One piece of the pattern: text as it is, or a placeholder still unknown.
    enum Piece: Sendable, Equatable {
        case text(String)
        /// Decimal digits (`{w}`, `{h}`).
        case number
        /// Lowercase letters (`{ext}`).
        case word
        /// Eight lowercase hex digits (`{hash8}`).
        case hash
    }

    /// The pieces, in order; consecutive text is merged.
    let pieces: [Piece]

    private static let markers: [Character: Piece] = ["\u{1}": .number, "\u{2}": .word, "\u{3}": .hash]

    /// The pattern of `template` for a row whose known values are `name`, `fit` and `row`; nil
    /// when the template renders to no path at all (the row fails on its own then).
    init?(template: String, name: String, fit: Fit, row: Int) {
        let values = OutputPathTemplate.Values(name: name, width: 0, height: 0, fit: fit, ext: "\u{2}",
                                               hash8: "\u{3}", row: row)
        // {w} and {h} are rendered as digits by the template; mark them instead.
        let marked = template.replacingOccurrences(of: "{w}", with: "\u{1}")
            .replacingOccurrences(of: "{h}", with: "\u{1}")
        guard let rendered = try? OutputPathTemplate.render(marked, values) else { return nil }
        var pieces: [Piece] = []
        var text = ""
        for character in OutputClaims.normalized(rendered) {
            if let piece = Self.markers[character] {
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                pieces.append(piece)
            } else {
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// Whether the pattern can render to `path` (already normalized).
    func matches(_ path: String) -> Bool {
        Self.match(pieces[...], Array(path.utf8)[...])
    }

    private static func match(_ pieces: ArraySlice<Piece>, _ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = pieces.first else { return bytes.isEmpty }
        let rest = pieces.dropFirst()
        switch first {
        case .text(let text):
            let utf8 = Array(text.utf8)
            guard bytes.starts(with: utf8) else { return false }
            return match(rest, bytes.dropFirst(utf8.count))
        case .hash:
            let digits = bytes.prefix(8)
            guard digits.count == 8, digits.allSatisfy(isHex) else { return false }
            return match(rest, bytes.dropFirst(8))
        case .number, .word:
            let accepts: (UInt8) -> Bool = first == .number ? { (48...57).contains($0) } : { (97...122).contains($0) }
            var length = 0
            for byte in bytes {
                guard accepts(byte) else { break }
                length += 1
                if match(rest, bytes.dropFirst(length)) { return true }
            }
            return false
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...102).contains(byte) }
}
