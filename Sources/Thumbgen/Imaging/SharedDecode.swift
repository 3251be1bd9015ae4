import Foundation

/// One decode of a source, made the first time a row asks for it and then shared by every row
/// of the source (nil when the file has none to give): `WebPPlanes`, `JPEGCoefficients`.
final class SharedDecode<Value: Sendable>: @unchecked Sendable {
    private let make: @Sendable () -> Value?
    private let lock = NSLock()
    private var made: Value??

    /// A decode that `make` performs when first asked for.
    init(_ make: @escaping @Sendable () -> Value?) { self.make = make }

    /// The decoded value, decoding it on the first call.
    func value() -> Value? {
        lock.withLock {
            if let made { return made }
            let value = make()
            made = .some(value)
            return value
        }
    }
}

extension SharedDecode {
    /// What `decode` makes of the bytes of the file at `path` (nil when it cannot be read):
    /// the C decoders take a whole file in memory.
    static func decodeFile(_ path: String, _ decode: (UnsafePointer<UInt8>, Int) -> Value?) -> Value? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.withUnsafeBytes { bytes in
            bytes.bindMemory(to: UInt8.self).baseAddress.flatMap { decode($0, bytes.count) }
        }
    }
}
