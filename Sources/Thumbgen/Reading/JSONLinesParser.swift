import Foundation

/// Streams JSON Lines: one JSON object per line, with the manifest's column names as keys.
///
/// Values may be strings, numbers, booleans or null (null means absent). A line that is not a
/// JSON object, or that uses an unknown key, fails only its own row.
final class JSONLinesParser {
    private let chunks: ByteChunks
    private var pending: [UInt8] = []
    private var line = 0
    private var atEnd = false

    /// Parses the bytes that `chunks` yields.
    init(chunks: ByteChunks) {
        self.chunks = chunks
    }

    /// The next record or row error; nil at the end.
    func next() throws -> Result<ManifestRecord, RowError>? {
        while let text = try nextLine() {
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            return parse(Data(text), line: line)
        }
        return nil
    }

    private func parse(_ data: Data, line: Int) -> Result<ManifestRecord, RowError> {
        guard let object = try? JSONSerialization.jsonObject(with: data),
              let dictionary = object as? [String: Any] else {
            return .failure(RowError(row: line, reason: "is not a JSON object"))
        }
        var values: [ManifestColumn: String] = [:]
        for (key, raw) in dictionary {
            guard let column = ManifestColumn(header: key) else {
                return .failure(RowError(
                    row: line, column: key,
                    reason: "is not a known key; known keys: \(ManifestColumn.knownNames)"))
            }
            guard let text = Self.text(of: raw) else {
                return .failure(RowError(row: line, column: key,
                                         reason: "must be a string, number or boolean"))
            }
            if !text.isEmpty { values[column] = text }
        }
        return .success(ManifestRecord(line: line, values: values))
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
                pending.removeSubrange(...newline)
                line += 1
                if line == 1 && text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
                return text
            }
            if atEnd {
                guard !pending.isEmpty else { return nil }
                line += 1
                defer { pending = [] }
                return pending
            }
            if let data = try chunks.next() { pending.append(contentsOf: data) } else { atEnd = true }
        }
    }
}
