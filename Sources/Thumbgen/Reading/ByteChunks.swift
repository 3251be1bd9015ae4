import Foundation

/// Reads a file (or standard input) in chunks of at most a fixed size, so that a manifest of
/// any length is read in constant memory.
///
/// A chunk is whatever one `read` gives, so rows arriving slowly on a pipe are handed on as
/// they come rather than once 64 KiB have gathered. With `stop`, an input that has nothing to
/// read is waited on in short polls, so that a signal ends the run even while a producer
/// keeps standard input open and silent.
final class ByteChunks {
    private let handle: FileHandle
    /// The most bytes one chunk holds.
    var chunkSize: Int
    private let stop: Cancellation?
    /// Called when the input has nothing to read right now, and every 100 ms while it waits:
    /// the rows read so far are handed on rather than held until more arrive.
    var onWait: (() -> Void)?
    /// Sees every chunk before it is handed out (the manifest's digest is taken here).
    var onChunk: (([UInt8]) -> Void)?
    /// Where the next chunk is read from, once `seek` was called: chunks are then read at an
    /// offset (`pread`), one system call each, with no wait (the input is a file).
    private var readOffset: Int?

    /// Reads from `handle`, at most `chunkSize` bytes at a time, until `stop` is pressed.
    init(handle: FileHandle, chunkSize: Int = 1 << 16, stop: Cancellation? = nil) {
        self.handle = handle
        self.chunkSize = chunkSize
        self.stop = stop
    }

    /// Makes the next chunk start at byte `offset` of a regular file: records read out of
    /// order (`SourceOrder`).
    func seek(to offset: Int) {
        readOffset = offset
    }

    /// Whether a read would return at once: bytes wait in a pipe, or the input is a file.
    var isReady: Bool {
        var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) != 0
    }

    /// The next chunk, or nil at the end of the input (or once `stop` is pressed).
    func next() throws -> [UInt8]? {
        let descriptor = handle.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        if let offset = readOffset {
            while true {
                let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, chunkSize, off_t(offset)) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                guard count > 0 else { return nil }
                readOffset = offset + count
                buffer.removeLast(chunkSize - count)
                return buffer
            }
        }
        var waited = false
        while true {
            if stop != nil || onWait != nil {
                if stop?.isCancelled == true { return nil }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, waited ? 100 : 0)
                // A signal interrupts poll (never restarted): look at `stop` again rather than
                // fall into a read that would block for ever on a silent pipe.
                if ready < 0 && errno == EINTR { continue }
                guard ready >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                if ready == 0 {
                    // Again after every wait: rows admitted meanwhile (a cache check answers
                    // from another thread) are started too.
                    onWait?()
                    waited = true
                    continue
                }
            }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, chunkSize) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            guard count > 0 else { return nil }
            buffer.removeLast(chunkSize - count)
            onChunk?(buffer)
            return buffer
        }
    }
}
