import Foundation

/// One message between the parent and a worker process, as it goes over a pipe.
///
/// A frame is a 4-byte little-endian length `n`, then `n` bytes: one byte of `Kind`, then the
/// body. Every body is the same: a 4-byte little-endian length `m`, `m` bytes of the message
/// (`WorkerMessages.swift`: JSON, or a `WireMessage`'s fields for `stage` and `output`), then
/// the payload as it is (an `output`'s encoded image; empty for every other kind). ARCHITECTURE.md documents the conversation;
/// `WorkerProtocol.version` changes whenever it does.
struct WorkerFrame: Sendable {
    /// What a frame carries. The raw values are the wire's, and never reused.
    enum Kind: UInt8, Sendable {
        /// parent → worker, first: the protocol version and the run's imaging settings.
        case setup = 1
        /// worker → parent, in answer to `setup`: the version it speaks and its pid.
        case ready = 2
        /// parent → worker: one source file and the rows that share its decode.
        case unit = 3
        /// worker → parent: the unit reached a stage (for the watchdog and for messages).
        case stage = 4
        /// worker → parent: the source's header is read; the memory its decode needs.
        case estimate = 5
        /// parent → worker: decode (the memory is granted), or fail the unit's rows.
        case admit = 6
        /// worker → parent: what the source is (its header), for a row's report, as soon as it
        /// is decoded (`--events` shows it then).
        case loaded = 7
        /// worker → parent: one row's encoded output.
        case output = 8
        /// worker → parent: one row's failure.
        case failure = 9
        /// worker → parent: the unit is over; every row has had its output or failure.
        case done = 10
    }

    var kind: Kind
    var body: Data

    /// A frame of `kind` carrying `message` as JSON, then `payload`; nil when `message` cannot
    /// be encoded.
    static func make<Message: Encodable>(_ kind: Kind, _ message: Message, payload: Data = Data()) -> WorkerFrame? {
        guard let json = try? JSONEncoder().encode(message) else { return nil }
        return WorkerFrame(kind: kind, message: json, payload: payload)
    }

    /// A frame of `kind` carrying `message`'s fields, then `payload`.
    static func make<Message: WireMessage>(_ kind: Kind, _ message: Message, payload: Data = Data()) -> WorkerFrame {
        var wire = WireWriter()
        message.write(to: &wire)
        return WorkerFrame(kind: kind, message: wire.data, payload: payload)
    }

    private init(kind: Kind, message: Data, payload: Data) {
        var body = Data(capacity: 4 + message.count + payload.count)
        body.appendLittleEndian(UInt32(message.count))
        body.append(message)
        body.append(payload)
        self.init(kind: kind, body: body)
    }

    init(kind: Kind, body: Data) {
        self.kind = kind
        self.body = body
    }

    /// The message as `Message`; nil when the body is not one.
    func decoded<Message: Decodable>(_ type: Message.Type) -> Message? {
        guard let range = messageRange else { return nil }
        return try? JSONDecoder().decode(type, from: body[range])
    }

    /// The message as `Message`; nil when the body is not one, or has bytes left over.
    func decoded<Message: WireMessage>(_ type: Message.Type) -> Message? {
        guard let range = messageRange else { return nil }
        var wire = WireReader(body[range])
        guard let message = Message(from: &wire), wire.isAtEnd else { return nil }
        return message
    }

    /// The bytes after the message (an output's image); empty when the body is malformed.
    var payload: Data {
        guard let range = messageRange else { return Data() }
        return Data(body[range.upperBound...])
    }

    /// Where the JSON message lies in `body`.
    private var messageRange: Range<Data.Index>? {
        guard body.count >= 4 else { return nil }
        let length = Int(body.littleEndianUInt32(at: 0))
        guard length <= body.count - 4 else { return nil }
        let start = body.startIndex + 4
        return start..<(start + length)
    }

    /// Frames larger than this are refused as garbage: no output thumbgen makes comes close.
    static let maxLength = 1 << 30

    /// The bytes that go over the pipe.
    var encoded: Data {
        var data = Data(capacity: 5 + body.count)
        data.appendLittleEndian(UInt32(1 + body.count))
        data.append(kind.rawValue)
        data.append(body)
        return data
    }
}

extension Data {
    /// Appends `value` as 4 little-endian bytes.
    mutating func appendLittleEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// The 4 little-endian bytes at `offset` (relative to `startIndex`) as a number.
    func littleEndianUInt32(at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(self[startIndex + offset + i]) << (8 * i) }
        return value
    }
}
