import Crypto
import Foundation

/// SHA-256 digests as lowercase hex: the names of everything in the cache.
enum ContentDigest {
    /// The digest of `bytes`.
    static func of<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// The digest of `text`'s UTF-8 bytes.
    static func of(text: String) -> String {
        of(Array(text.utf8))
    }

    /// The digest of a file's bytes, read in 1 MiB chunks; nil when it cannot be read.
    static func ofFile(at path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return ofFile(descriptor: fd)
    }

    /// The digest of what remains to be read from the open file `fd`; nil when it cannot be
    /// read, or `cancellation` is pressed first (checked between chunks).
    static func ofFile(descriptor fd: Int32, until cancellation: Cancellation? = nil) -> String? {
        var hasher = SHA256()
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while cancellation?.isCancelled != true {
            let n = read(fd, buffer.baseAddress, size)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return cancellation?.isCancelled == true ? nil : hex(hasher.finalize())
    }

    /// Lowercase hex of a digest, without `String(format:)` (slow on Linux, and this runs for
    /// every row of a warm run).
    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let bytes = Array(digest)
        // Written straight into the string's storage: no array of digits or of output.
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = hexDigit(byte >> 4)
                out[2 * index + 1] = hexDigit(byte & 0x0f)
            }
            return bytes.count * 2
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Whether `text` looks like a digest (64 lowercase hex digits): names read back from the
    /// cache are checked before they become paths.
    static func isValid(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
