import Synchronization

/// The paths an `out` template can still render to before the output is made: `{name}`,
/// `{fit}` and `{row}` are known from the row, while `{w}`, `{h}`, `{ext}` and `{hash8}` are
/// known only once the output is encoded. Two rows whose patterns cannot produce the same path
/// can never collide, so neither has to wait for the other (`OutputClaims`).
struct OutputPathPattern: Sendable, Hashable {
    /// One piece of the pattern: text as it is, or a placeholder still unknown.
    enum Piece: Sendable, Hashable {
        case text(String)
        /// Decimal digits (`{w}`, `{h}`).
        case number
        /// Lowercase letters (`{ext}`).
        case word
        /// Eight lowercase hex digits (`{hash8}`).
        case hash
        /// Any path at all.
        case anything
    }

    /// The pieces, in order; consecutive text is merged.
    let pieces: [Piece]
    /// The text before the first unknown, as bytes: most patterns differ there (`{name}`
    /// comes first in most templates), so a path is usually told apart by it alone.
    let prefix: [UInt8]

    /// The pattern of `template` for a row whose known values are `name`, `fit` and `row`; nil
    /// when the template renders to no path at all (the row fails on its own then).
    init?(template: String, name: String, fit: Fit, row: Int) {
        self.init(parsed: ParsedTemplate(template), name: name, fit: fit, row: row)
    }

    /// The pattern of a template parsed before (`ParsedTemplate`), for a row's known values.
    init?(parsed template: ParsedTemplate, name: String, fit: Fit, row: Int) {
        var pieces: [Piece] = []
        var text = ""
        for part in template.parts {
            switch part {
            case .text(let t): text += t
            case .name: text += name
            case .fit: text += fit.rawValue
            case .row: text += String(row)
            case .unknown(let unknown):
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                pieces.append(unknown)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        guard !pieces.isEmpty else { return nil }
        // A path with `//` or `./` is normalized before it is claimed, which a pattern cannot
        // follow piece by piece: such a rare template matches every path, so later rows wait
        // for it rather than risk taking its path.
        let needsNormalizing = pieces.contains {
            if case .text(let t) = $0 { t.containsBytes("//") || t.containsBytes("/./") || t.hasPrefix("./") } else { false }
        }
        self.pieces = needsNormalizing ? [.anything] : pieces
        if !needsNormalizing, case .text(let t)? = pieces.first { prefix = Array(t.utf8) } else { prefix = [] }
    }

    /// An `out` template cut at its placeholders once, so that each row's pattern is put
    /// together without reading the template again.
    struct ParsedTemplate: Sendable {
        enum Part: Sendable {
            case text(String)
            case name, fit, row
            case unknown(Piece)
        }

        let parts: [Part]
        /// Whether the template names `{row}` (its pattern differs on every row).
        var namesRow: Bool { parts.contains { if case .row = $0 { true } else { false } } }

        init(_ template: String) {
            var parts: [Part] = []
            var rest = Substring(template)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
                switch rest[rest.index(after: open)..<close] {
                case "w", "h": parts.append(.unknown(.number))
                case "ext": parts.append(.unknown(.word))
                case "hash8": parts.append(.unknown(.hash))
                case "name": parts.append(.name)
                case "fit": parts.append(.fit)
                case "row": parts.append(.row)
                default: parts.append(.text(String(rest[open...close])))
                }
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { parts.append(.text(String(rest))) }
            self.parts = parts
        }
    }

    /// Whether the pattern can render to the path whose UTF-8 bytes are `path` (normalized).
    func matches(_ path: [UInt8]) -> Bool {
        guard path.starts(with: prefix) else { return false }
        return Self.match(pieces[...], path[...])
    }

    private static func match(_ pieces: ArraySlice<Piece>, _ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = pieces.first else { return bytes.isEmpty }
        let rest = pieces.dropFirst()
        switch first {
        case .anything:
            return true
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

/// The pattern of the row made just before, made again only when a row's template, source or
/// fit differ (or its template holds `{row}`): a source's rows, one per size, follow one another,
/// and making the pattern (and the source's `{name}`) was a fifth of a warm run's reading thread.
/// The templates met lately are kept parsed: a manifest's rows cycle through a few (one per
/// size), and reading one again was most of the cost of a row whose source or template changed.
final class OutputPathPatternMemo: Sendable {
    private struct Last {
        var template: String
        var source: SourceLocation
        var fit: Fit
        var pattern: OutputPathPattern?
    }

    private let last = Mutex<Last?>(nil)
    private let parsed = Mutex(KnownValues<String, OutputPathPattern.ParsedTemplate>(capacity: 4096))

    /// `OutputPathPattern(template:name:fit:row:)` for a row of `source` (its `stem` is the
    /// name), from the last one made when it serves.
    func pattern(template: String, source: SourceLocation, fit: Fit, row: Int) -> OutputPathPattern? {
        // Only templates without `{row}` are remembered, so a hit needs no scan of the template.
        if let hit = last.withLock({ last -> Last? in
            guard let last, last.fit == fit, last.source == source, last.template == template else { return nil }
            return last
        }) {
            return hit.pattern
        }
        let form = parsed.withLock { recent in
            if let known = recent.value(for: template) { return known }
            let form = OutputPathPattern.ParsedTemplate(template)
            recent.note(template, form)
            return form
        }
        let pattern = OutputPathPattern(parsed: form, name: source.stem, fit: fit, row: row)
        if !form.namesRow {
            last.withLock { $0 = Last(template: template, source: source, fit: fit, pattern: pattern) }
        }
        return pattern
    }
}
