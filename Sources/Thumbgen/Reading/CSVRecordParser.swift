import Foundation

/// A streaming RFC 4180 parser: quoted fields with embedded commas, quotes and newlines, CRLF
/// or LF, UTF-8 with an optional BOM.
///
/// Written here rather than taken from a package because thumbgen needs what the packages on
/// hand do not give: the line on which each record starts (errors name it), a hard error on a
/// quote left open, and byte-level speed on million-row manifests.
final class CSVRecordParser {
    /// One parsed record: its fields, the 1-based line on which it starts, and the indices of
    /// the fields that are not UTF-8 (their text shows the bad bytes as `\xNN`).
    struct Record: Equatable {
        var line: Int
        var fields: [String]
        var invalid: [Int] = []
    }

    private let chunks: ByteChunks
    private var buffer: [UInt8] = []
    /// The file offset of `buffer`'s first byte.
    private var bufferStart = 0
    private var position = 0
    private var atEnd = false
    private var line = 1
    private var sawFirstChunk = false
    /// The file offset of the first byte of the record `next()` returned last.
    private(set) var recordOffset = 0

    /// Parses the bytes that `chunks` yields.
    init(chunks: ByteChunks) {
        self.chunks = chunks
    }

    /// The next non-empty record, or nil at the end; throws `unterminatedQuote(line)` when the
    /// input ends inside quotes.
    func next() throws -> Record? {
        nextRecord: while true {
            guard try fill() else { return nil }
            let start = line
            recordOffset = bufferStart + position
            var fields: [String] = []
            var invalid: [Int] = []
            var field: [UInt8] = []
            func endField() {
                let (text, valid) = CellText.decode(field[...])
                if !valid { invalid.append(fields.count) }
                fields.append(text)
            }
            var quoted = false      // inside a quoted section
            var fieldHasData = false
            while true {
                guard try fill() else {
                    if quoted { throw CSVParseError.unterminatedQuote(line: start) }
                    endField()
                    return finish(fields, invalid, start)
                }
                let byte = buffer[position]
                position += 1
                if quoted {
                    if byte == UInt8(ascii: "\"") {
                        if try peek() == UInt8(ascii: "\"") {
                            position += 1
                            field.append(byte)
                        } else {
                            quoted = false
                        }
                    } else {
                        if byte == UInt8(ascii: "\n") { line += 1 }
                        field.append(byte)
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: ","):
                    endField()
                    field.removeAll(keepingCapacity: true)
                    fieldHasData = false
                case UInt8(ascii: "\"") where !fieldHasData:
                    quoted = true
                    fieldHasData = true
                case UInt8(ascii: "\r"):
                    if try peek() == UInt8(ascii: "\n") { position += 1 }
                    line += 1
                    endField()
                    if let record = finish(fields, invalid, start) { return record }
                    continue nextRecord
                case UInt8(ascii: "\n"):
                    line += 1
                    endField()
                    if let record = finish(fields, invalid, start) { return record }
                    continue nextRecord
                default:
                    // The rest of the unquoted run at once: the bytes in hand up to the next
                    // comma, quote or line end (a byte at a time through this loop was most of
                    // a warm row's reading).
                    var end = position
                    while end < buffer.count {
                        let next = buffer[end]
                        if next == UInt8(ascii: ",") || next == UInt8(ascii: "\"") || next == UInt8(ascii: "\n")
                            || next == UInt8(ascii: "\r") { break }
                        end += 1
                    }
                    field.append(byte)
                    field.append(contentsOf: buffer[position..<end])
                    position = end
                    fieldHasData = true
                }
            }
        }
    }

    /// Makes the next record the one whose first byte is at `offset` (a `recordOffset` seen
    /// before) and which starts on `line`. An offset within the bytes in hand costs nothing;
    /// any other is read in small chunks, since a record read out of order is seldom near the
    /// one before it.
    func seek(to offset: Int, line: Int) {
        self.line = line
        if offset >= bufferStart && offset <= bufferStart + buffer.count {
            position = offset - bufferStart
            return
        }
        chunks.seek(to: offset)
        chunks.chunkSize = Self.seekChunkSize
        buffer = []
        bufferStart = offset
        position = 0
        atEnd = false
        sawFirstChunk = true
    }

    /// The file offset of the next byte to parse, and its line: where the records after the
    /// header start (`CSVSourceScanner`).
    var nextByte: (offset: Int, line: Int) { (bufferStart + position, line) }

    /// Whether bytes are in hand or a read would not wait.
    var isReady: Bool { position < buffer.count || atEnd || chunks.isReady }

    /// The chunk read after a seek: several records' worth (a longer record reads on).
    static let seekChunkSize = 1024

    /// Returns the record, or nil for a blank line (one empty field), which is skipped.
    private func finish(_ fields: [String], _ invalid: [Int], _ start: Int) -> Record? {
        if fields.count == 1 && fields[0].isEmpty { return nil }
        return Record(line: start, fields: fields, invalid: invalid)
    }

    /// Makes sure at least one byte is buffered; false at the end of input.
    private func fill() throws -> Bool {
        if position < buffer.count { return true }
        if atEnd { return false }
        guard let data = try chunks.next() else {
            atEnd = true
            return false
        }
        bufferStart += buffer.count
        buffer = data
        position = 0
        if !sawFirstChunk {
            sawFirstChunk = true
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        }
        if position < buffer.count { return true }
        return try fill()
    }

    private func peek() throws -> UInt8? {
        guard try fill() else { return nil }
        return buffer[position]
    }
}

/// A syntax error in CSV input.
enum CSVParseError: Error, Equatable {
    /// The input ended inside a quoted field that opened on this record's line.
    case unterminatedQuote(line: Int)
}
