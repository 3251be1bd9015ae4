import Foundation

/// Reads a file (or standard input) in fixed-size chunks, so that a manifest of any length is
/// read in constant memory.
final class ByteChunks {
    private let handle: FileHandle
    private let chunkSize: Int

    /// Reads from `handle`, `chunkSize` bytes at a time.
    init(handle: FileHandle, chunkSize: Int = 1 << 16) {
        self.handle = handle
        self.chunkSize = chunkSize
    }

    /// The next chunk, or nil at the end of the input.
    func next() throws -> Data? {
        let data = try handle.read(upToCount: chunkSize) ?? Data()
        return data.isEmpty ? nil : data
    }
}
