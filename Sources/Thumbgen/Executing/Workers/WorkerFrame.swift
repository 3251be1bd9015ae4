import Foundation

/// One message between the parent and a worker process, as it goes over a pipe.
///
/// A frame is a 4-byte little-endian length `n`, then `n` bytes: one byte of `Kind`, then the
/// body. Bodies are JSON (`WorkerMessages.swift`), except an `output`'s, which is a 4-byte
/// little-endian length `m`, `m` bytes of JSON, then the encoded image's bytes as they are.
/// ARCHITECTURE.md documents the conversation; `WorkerProtocol.version` changes whenever it
/// does.
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
        /// worker → parent: what the source is (its header), for a row's report.
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
