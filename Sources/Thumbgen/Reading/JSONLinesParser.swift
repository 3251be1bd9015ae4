import Foundation

/// Streams JSON Lines: one JSON object per line, with the manifest's column names as keys.
///
/// Values may be strings, numbers, booleans or null (null means absent). A line that is not a
/// JSON object, or that uses an unknown key, fails only its own row.
final class JSONLinesParser {
    private let chunks: ByteChunks
    private var pending: [UInt8] = []
    /// The file offset of `pending`'s first byte.
    private var pendingStart = 0
    private var line = 0
    private var atEnd = false
    /// The file offset of the line `next()` returned last.
    private(set) var recordOffset = 0

    /// Parses the bytes that `chunks` yields.
    init(chunks: ByteChunks) {
        self.chunks = chunks
    }

    /// The next record or row error; nil at the end.
    func next() throws -> Result<ManifestRecord, RowError>? {
        while let text = try nextLine() {
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            if String(validating: text, as: UTF8.self) != nil { return parse(Data(text), line: line) }
            return parse(Data(CellText.replacingInvalid(text[...], prefix: Array(String(Self.invalidMark).utf8))),
                         line: line, marked: true)
        }
        return nil
    }

    /// Makes the next record the one on `line`, whose first byte is at `offset` (a
    /// `recordOffset` seen before).
    func seek(to offset: Int, line: Int) {
        self.line = line - 1
        if offset >= pendingStart && offset <= pendingStart + pending.count {
            pending.removeSubrange(..<(offset - pendingStart))
            pendingStart = offset
            return
        }
        chunks.seek(to: offset)
        chunks.chunkSize = CSVRecordParser.seekChunkSize
        pending = []
        pendingStart = offset
        atEnd = false
    }

    /// Whether bytes are in hand or a read would not wait.
    var isReady: Bool { atEnd || !pending.isEmpty || chunks.isReady }

    /// A line that is not UTF-8 is parsed with each bad byte replaced by `invalidMark` and its
    /// two hex digits: JSON would refuse the line whole, and the row's error should name the
    /// column. U+10FFFF is a noncharacter, which no manifest has reason to hold.
    static let invalidMark: Character = "\u{10FFFF}"

    private func parse(_ data: Data, line: Int, marked: Bool = false) -> Result<ManifestRecord, RowError> {
        guard let object = try? JSONSerialization.jsonObject(with: data),
              let dictionary = object as? [String: Any] else {
            return .failure(RowError(row: line, reason: marked ? "is not UTF-8 JSON" : "is not a JSON object"))
        }
        func shown(_ text: String) -> String {
            marked ? text.replacingOccurrences(of: String(Self.invalidMark), with: "\\x") : text
        }
        var values: [ManifestColumn: String] = [:]
        var invalid: [ManifestColumn] = []
        for (rawKey, raw) in dictionary {
            let key = shown(rawKey)
            guard let column = ManifestColumn(header: key) else {
                return .failure(RowError(
                    row: line, column: key,
                    reason: "is not a known key; known keys: \(ManifestColumn.knownNames)"))
            }
            guard let text = Self.text(of: raw) else {
                return .failure(RowError(row: line, column: key,
                                         reason: "must be a string, number or boolean"))
            }
            if marked, text.contains(Self.invalidMark) {
                invalid.append(column)
                values[column] = shown(text)
            } else if !text.isEmpty {
                values[column] = text
            }
        }
        invalid.sort { $0.ordinal < $1.ordinal }
        return .success(ManifestRecord(line: line, values: values, invalidColumns: invalid))
    }

    private static func text(of value: Any) -> String? {
        switch value {
        case is NSNull: return ""
        case let string as String: return string
        case let number as NSNumber:
            // JSON true/false arrive as NSNumber too; their type code is "c" (char).
            if String(cString: number.objCType) == "c" { return number.boolValue ? "true" : "false" }
            return number.stringValue
        default: return nil
        }
    }

    private func nextLine() throws -> [UInt8]? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                var text = Array(pending[..<newline])
                recordOffset = pendingStart
                pending.removeSubrange(...newline)
                pendingStart += newline + 1
                line += 1
                if line == 1 && text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
                return text
            }
            if atEnd {
                guard !pending.isEmpty else { return nil }
                line += 1
                recordOffset = pendingStart
                pendingStart += pending.count
                defer { pending = [] }
                return pending
            }
            if let data = try chunks.next() { pending.append(contentsOf: data) } else { atEnd = true }
        }
    }
}
