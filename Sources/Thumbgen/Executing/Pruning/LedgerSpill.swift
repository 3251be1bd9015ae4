import Foundation

/// An unlinked temporary file a `PlacedLedger` spills its packed entries to, so that a run of
/// 100,000 rows holds none of them in memory: it has no name from the start (nothing to
/// clean up after a crash) and is closed when the ledger goes. Used under the ledger's lock.
final class LedgerSpill: @unchecked Sendable {
    /// The open file; -1 when none could be made (the ledger then keeps its entries in memory).
    private let descriptor: Int32
    /// Bytes written whole so far; after a failed write, no more are (the rest stays in memory).
    private var length = 0
    private var broken = false

    /// Makes the file in the temporary folder (`$TMPDIR`, else `/tmp`).
    init() {
        var template = Array((FileManager.default.temporaryDirectory.path + "/thumbgen-placed-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            let descriptor = mkstemp(base)
            if descriptor >= 0 {
                unlink(base)
                // Never handed to a worker process.
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
            return descriptor
        }
        descriptor = made
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends `bytes`; false when it could not (they stay with the ledger, and a part written
    /// is cut off again, so that the file holds whole entries only).
    func write(_ bytes: [UInt8]) -> Bool {
        guard descriptor >= 0, !broken else { return false }
        guard bytes.withUnsafeBytes({ DescriptorIO.writeAll(descriptor, $0) }) else {
            broken = true
            _ = ftruncate(descriptor, off_t(length))
            return false
        }
        length += bytes.count
        return true
    }

    /// Everything written so far.
    func readAll() -> [UInt8] {
        guard descriptor >= 0, length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        var read = 0
        while read < length {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return pread(descriptor, base + read, length - read, off_t(read))
            }
            guard got > 0 else { break }
            read += got
        }
        return Array(bytes.prefix(read))
    }
}
