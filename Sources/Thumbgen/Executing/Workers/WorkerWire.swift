import Foundation

/// A message written field by field in a fixed little-endian layout instead of JSON: the ones
/// a worker sends for every row (`Stage` twice, `Output` once), whose JSON coding on both sides
/// of the pipe was about a twentieth of a ten-size run's cycles. Every other message is rare
/// and stays JSON (`WorkerFrame.make`).
protocol WireMessage {
    /// Appends the message's fields.
    func write(to wire: inout WireWriter)
    /// Reads the fields `write` wrote; nil when the bytes are not such a message.
    init?(from wire: inout WireReader)
}

/// Where a `WireMessage` is written: integers as 8 bytes, an optional as a presence byte
/// before its value, text as a 4-byte length and its UTF-8.
struct WireWriter {
    private(set) var data = Data()

    mutating func int(_ value: Int) {
        Swift.withUnsafeBytes(of: Int64(value).littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        Swift.withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
    }

    mutating func text(_ value: String) {
        let utf8 = Array(value.utf8)
        data.appendLittleEndian(UInt32(utf8.count))
        data.append(contentsOf: utf8)
    }

    mutating func flag(_ value: Bool) {
        data.append(value ? 1 : 0)
    }

    /// A presence byte, then `value` written by `field` when there is one.
    mutating func optional<Value>(_ value: Value?, _ field: (inout WireWriter, Value) -> Void) {
        flag(value != nil)
        if let value { field(&self, value) }
    }
}

/// Reads what a `WireWriter` wrote; every read is nil past the end or on a malformed field.
struct WireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) {
        bytes = Array(data)
    }

    /// Whether every byte was read: a message with bytes left over is not one.
    var isAtEnd: Bool { offset == bytes.count }

    private mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    private mutating func uint64() -> UInt64? {
        guard let field = take(8) else { return nil }
        return field.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func int() -> Int? {
        uint64().map { Int(Int64(bitPattern: $0)) }
    }

    mutating func double() -> Double? {
        uint64().map(Double.init(bitPattern:))
    }

    mutating func text() -> String? {
        guard let field = take(4) else { return nil }
        let count = field.reversed().reduce(0) { $0 << 8 | Int($1) }
        return take(count).flatMap { String(validating: $0, as: UTF8.self) }
    }

    mutating func flag() -> Bool? {
        switch take(1)?.first {
        case 0: false
        case 1: true
        default: nil
        }
    }

    /// An optional written by `WireWriter.optional`: `.some(nil)` when absent, nil when the
    /// bytes are malformed.
    mutating func optional<Value>(_ field: (inout WireReader) -> Value?) -> Value?? {
        guard let present = flag() else { return nil }
        guard present else { return .some(nil) }
        guard let value = field(&self) else { return nil }
        return .some(value)
    }
}

extension WorkerProtocol.Stage: WireMessage {
    func write(to wire: inout WireWriter) {
        wire.text(stage.rawValue)
        wire.optional(row) { $0.int($1) }
    }

    init?(from wire: inout WireReader) {
        guard let stage = wire.text().flatMap(WorkerStage.init(rawValue:)),
              let row = wire.optional({ $0.int() }) else { return nil }
        self.init(stage: stage, row: row)
    }
}

extension WorkerProtocol.Output: WireMessage {
    func write(to wire: inout WireWriter) {
        wire.int(row)
        wire.int(width)
        wire.int(height)
        wire.text(format.rawValue)
        wire.optional(decodeMs) { $0.double($1) }
        wire.optional(renderMs) { $0.double($1) }
        wire.optional(placeholder) { $0.text($1) }
        wire.optional(owesPlaceholder) { $0.flag($1) }
        wire.optional(cropBox) { wire, box in
            for side in [box.x, box.y, box.width, box.height] { wire.int(side) }
        }
    }

    init?(from wire: inout WireReader) {
        guard let row = wire.int(), let width = wire.int(), let height = wire.int(),
              let format = wire.text().flatMap(OutputFormat.init(rawValue:)),
              let decodeMs = wire.optional({ $0.double() }),
              let renderMs = wire.optional({ $0.double() }),
              let placeholder = wire.optional({ $0.text() }),
              let owesPlaceholder = wire.optional({ $0.flag() }),
              let cropBox = wire.optional({ wire -> CropBox? in
                  guard let x = wire.int(), let y = wire.int(), let width = wire.int(),
                        let height = wire.int() else { return nil }
                  return CropBox(x: x, y: y, width: width, height: height)
              })
        else { return nil }
        self.init(row: row, width: width, height: height, format: format, decodeMs: decodeMs,
                  renderMs: renderMs, placeholder: placeholder, owesPlaceholder: owesPlaceholder,
                  cropBox: cropBox)
    }
}
