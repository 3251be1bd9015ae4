import Foundation
import Synchronization

/// The file one download attempt writes into, open for writing: its one owner.
///
/// The descriptor is closed exactly once, by `close()` as soon as the transfer ends (before
/// anyone reads the file), or in `deinit` on a path that gave up first, so no early return
/// can leak it.
final class DownloadFile: Sendable {
    /// The open descriptor, for libcurl's write callback (`CurlTransfer`); valid until `close()`.
    let descriptor: Int32
    /// Whether it is still open.
    private let open = Mutex(true)

    /// Creates or truncates the file at `path` (mode 0600); nil, with errno saying why, when it
    /// cannot be opened.
    init?(path: String) {
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    /// Closes the descriptor now; later calls do nothing.
    func close() {
        let wasOpen = open.withLock { isOpen in
            defer { isOpen = false }
            return isOpen
        }
        if wasOpen { _ = Foundation.close(descriptor) }
    }

    deinit {
        close()
    }
}
