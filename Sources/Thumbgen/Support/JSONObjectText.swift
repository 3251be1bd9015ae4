/// A JSON object written field by field, keys in the order given (the caller sorts them);
/// absent values are left out, as `JSONEncoder` leaves out nil optionals. It is built as
/// bytes: a warm run with `--report` writes one for every row, and appending to a `String`
/// piece by piece (each append checking the string's storage and flags) was 11% of such a run.
struct JSONObjectText {
    /// The object so far, from its opening brace (after whatever the buffer it was begun in
    /// held).
    private var bytes: [UInt8]
    /// Where the object's first key goes.
    private let start: Int

    /// An object on its own.
    init() {
        bytes = []
        bytes.reserveCapacity(384)
        bytes.append(UInt8(ascii: "{"))
        start = bytes.count
    }

    /// An object appended to `buffer`, which it takes until `finish(into:)` gives it back: the
    /// report encodes a batch's records into one buffer, not an array each.
    init(appendingTo buffer: inout [UInt8]) {
        bytes = []
        swap(&bytes, &buffer)
        bytes.append(UInt8(ascii: "{"))
        start = bytes.count
    }

    /// `{...}`, the object done.
    consuming func text() -> String {
        var buffer: [UInt8] = []
        finish(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Closes the object and gives the buffer back, the object at its end.
    consuming func finish(into buffer: inout [UInt8]) {
        bytes.append(UInt8(ascii: "}"))
        swap(&bytes, &buffer)
    }

    mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        addKey(key)
        Self.appendQuoted(value, to: &bytes)
    }

    mutating func add(_ key: String, _ value: Int?) {
        guard let value else { return }
        addKey(key)
        Self.append(String(value), to: &bytes)
    }

    mutating func add(_ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        addRaw(key, value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value))
    }

    /// Adds an object whose members `fill` adds.
    mutating func addObject(_ key: String, _ fill: (inout JSONObjectText) -> Void) {
        var inner = JSONObjectText()
        fill(&inner)
        addRaw(key, inner.text())
    }

    /// Adds a value that is JSON text already.
    mutating func addRaw(_ key: String, _ json: String) {
        addKey(key)
        Self.append(json, to: &bytes)
    }

    private mutating func addKey(_ key: String) {
        if bytes.count > start { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        Self.append(key, to: &bytes)
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
        // One pass over the text's own bytes when nothing needs escaping (nearly always).
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: needsEscape) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        // Something to escape (or a string without contiguous UTF-8): byte by byte.
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
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `text`'s UTF-8 bytes: a copy of its storage where it has one (appending the
    /// `utf8` view itself went byte by byte).
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if done == nil { bytes.append(contentsOf: Array(text.utf8)) }
    }

    /// Whether a byte of UTF-8 must be escaped in a JSON string.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
