import Foundation

/// Whole reads and writes on a raw file descriptor.
///
/// `read` and `write` may move fewer bytes than asked, and a signal may interrupt them before
/// they move any (`EINTR`): every caller needs the same loop, so it is written once here.
enum DescriptorIO {
    /// Writes all of `bytes` to `descriptor`, retrying interrupted writes; false (errno says
    /// why, unless a write took nothing) as soon as one fails.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let n = write(descriptor, base + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Reads from `descriptor` into `buffer` until it is full, the file ends or a read fails,
    /// retrying interrupted reads; how many bytes were read (fewer than `buffer.count` at the
    /// end of the file or on an error).
    static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let n = read(descriptor, base + filled, buffer.count - filled)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        return filled
    }
}
