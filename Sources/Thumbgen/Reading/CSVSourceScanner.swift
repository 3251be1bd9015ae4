/// The first pass over a CSV manifest at byte speed: where each record starts, on which line,
/// and the bytes of its `src` cell, by `CSVRecordParser`'s rules exactly (quoted fields across
/// lines, `""` inside quotes, CRLF, CR or LF, a blank line being one empty field), without
/// making a string of any cell. Fed the bytes after the header, chunk by chunk.
struct CSVSourceScanner {
    /// One record: its first byte, its first line, and its `src` cell's bytes (nil when the
    /// record has more fields than the header, or fewer than the `src` column needs).
    struct Found {
        var offset: Int
        var line: Int
        var source: ArraySlice<UInt8>?
    }

    private let sourceField: Int
    private let columns: Int
    private var offset: Int
    private var line: Int
    // The record being read.
    private var start: Int
    private var startLine: Int
    private var field = 0
    private var firstFieldBytes = 0
    private var source: [UInt8] = []
    private var began = false
    private var quoted = false
    private var afterQuote = false
    private var fieldHasData = false
    /// A CR ended the record before: an LF right after belongs to it.
    private var afterCR = false

    /// A scanner for records whose `src` is field `sourceField` of `columns`, the first starting
    /// at byte `offset`, on `line`.
    init(sourceField: Int, columns: Int, offset: Int, line: Int) {
        self.sourceField = sourceField
        self.columns = columns
        self.offset = offset
        self.line = line
        start = offset
        startLine = line
    }

    /// Scans `bytes`, the next of the file, handing each record found to `found`.
    mutating func scan(_ bytes: UnsafeRawBufferPointer, _ found: (Found) -> Void) {
        var index = 0
        while index < bytes.count {
            // Inside an unquoted field begun, the bytes up to the next comma, quote or line
            // end change nothing but the cell: taken as one run (a byte at a time through
            // `take` was most of the first pass).
            if began && !quoted && !afterQuote && !afterCR && Self.isPlain(bytes[index]) {
                var end = index + 1
                while end < bytes.count && Self.isPlain(bytes[end]) { end += 1 }
                if field == 0 { firstFieldBytes += end - index }
                if field == sourceField { source.append(contentsOf: bytes[index..<end]) }
                fieldHasData = true
                offset += end - index
                index = end
                continue
            }
            take(bytes[index], found)
            offset += 1
            index += 1
        }
    }

    /// Whether `byte` is part of an unquoted cell's text wherever it stands: not a comma, a
    /// quote or a line end.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: ",") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\n")
            && byte != UInt8(ascii: "\r")
    }

    /// Ends the input: the last record, if one was begun; throws when it ends inside quotes.
    mutating func finish(_ found: (Found) -> Void) throws(CSVParseError) {
        if quoted && !afterQuote { throw .unterminatedQuote(line: startLine) }
        if began { endRecord(found) }
    }

    private mutating func take(_ byte: UInt8, _ found: (Found) -> Void) {
        if afterCR {
            afterCR = false
            if byte == UInt8(ascii: "\n") {
                start = offset + 1
                return
            }
        }
        if !began {
            began = true
            start = offset
            startLine = line
        }
        if afterQuote {
            afterQuote = false
            if byte == UInt8(ascii: "\"") {
                keep(byte)
                return
            }
            quoted = false
        } else if quoted {
            if byte == UInt8(ascii: "\"") {
                afterQuote = true
            } else {
                if byte == UInt8(ascii: "\n") { line += 1 }
                keep(byte)
            }
            return
        }
        switch byte {
        case UInt8(ascii: ","):
            field += 1
            fieldHasData = false
        case UInt8(ascii: "\"") where !fieldHasData:
            quoted = true
            fieldHasData = true
        case UInt8(ascii: "\r"):
            line += 1
            endRecord(found)
            afterCR = true
        case UInt8(ascii: "\n"):
            line += 1
            endRecord(found)
        default:
            keep(byte)
            fieldHasData = true
        }
    }

    private mutating func keep(_ byte: UInt8) {
        if field == 0 { firstFieldBytes += 1 }
        if field == sourceField { source.append(byte) }
    }

    private mutating func endRecord(_ found: (Found) -> Void) {
        let fields = field + 1
        if !(fields == 1 && firstFieldBytes == 0) {
            let fits = fields <= columns && sourceField < fields && !source.isEmpty
            found(Found(offset: start, line: startLine, source: fits ? source[...] : nil))
        }
        began = false
        field = 0
        firstFieldBytes = 0
        source.removeAll(keepingCapacity: true)
        quoted = false
        afterQuote = false
        fieldHasData = false
        start = offset + 1
    }
}
