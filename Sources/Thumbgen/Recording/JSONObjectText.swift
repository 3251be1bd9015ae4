/// A JSON object written field by field, keys in the order given (the caller sorts them);
/// absent values are left out, as `JSONEncoder` leaves out nil optionals. It is built as
/// bytes: a warm run with `--report` writes one for every row, and appending to a `String`
/// piece by piece (each append checking the string's storage and flags) was 11% of such a run.
struct JSONObjectText {
    /// The object so far, from its opening brace.
    private var bytes: [UInt8] = {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(384)
        return bytes
    }()

    /// `{...}`, the object done.
    consuming func text() -> String {
        String(decoding: utf8(), as: UTF8.self)
    }

    /// `{...}`, the object done, as UTF-8.
    consuming func utf8() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        addKey(key)
        Self.appendQuoted(value, to: &bytes)
    }

    mutating func add(_ key: String, _ value: Int?) {
        guard let value else { return }
        addKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func add(_ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        addRaw(key, value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value))
    }

    /// Adds a value that is JSON text already.
    mutating func addRaw(_ key: String, _ json: String) {
        addKey(key)
        bytes.append(contentsOf: json.utf8)
    }

    private mutating func addKey(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: key.utf8)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, the rest
    /// (slashes and non-ASCII included) as it is.
    static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string: in one copy when nothing needs escaping (nearly always).
    private static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let escapes = text.utf8.withContiguousStorageIfAvailable { $0.contains(where: needsEscape) }
            ?? text.utf8.contains(where: needsEscape)
        if escapes {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
                case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0x0f)])
                default: bytes.append(byte)
                }
            }
        } else {
            bytes.append(contentsOf: text.utf8)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Whether a byte of UTF-8 must be escaped in a JSON string.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
