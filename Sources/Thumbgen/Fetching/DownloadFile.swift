import Foundation

/// The file one download attempt writes into, open for writing: the one owner of its descriptor.
///
/// The descriptor is opened in `init` and closed in `deinit`, nowhere else. Its transfer
/// (`CurlTransfer`) holds the only reference and lets go of it the moment the transfer ends, so
/// the file is closed before anyone reads it, and no early return can leak it.
final class DownloadFile: Sendable {
    /// The open descriptor; it never leaves this object, so it cannot be used after `deinit`.
    private let descriptor: Int32

    /// Creates or truncates the file at `path` (mode 0600); throws, with the system's reason,
    /// when it cannot be opened.
    init(path: String) throws(FetchError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .localWrite(path: path, errno: errno) }
        self.descriptor = descriptor
    }

    deinit {
        _ = close(descriptor)
    }

    /// Appends `bytes`; the errno of the failure, or nil when they were written.
    func write(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        DescriptorIO.writeAll(descriptor, bytes) ? nil : errno
    }
}
