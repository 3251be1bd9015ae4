import Foundation

/// A new file under a locked-form temporary name, written whole and then renamed into place:
/// how outputs and cache entries are written. Its lock is held, and it is registered for
/// removal on interruption, from its creation until it is renamed or deleted.
final class TemporaryFile {
    /// Where it is while being written.
    let path: String
    private let lock: LockedFile
    private let registry: TemporaryFiles
    private var done = false

    /// Creates the file in `folder` for `fileName`, registered in `registry`; nil (errno says
    /// why) when it cannot be made.
    init?(in folder: String, for fileName: String, registry: TemporaryFiles) {
        // A new name when a sweeper took the last one between its creation and its lock; a
        // sweeper never takes one twice, so a few tries are plenty.
        for _ in 0..<4 {
            let path = folder + "/" + TemporaryName.locked(for: fileName)
            errno = 0
            if let lock = registry.create(path, { LockedFile.create(path) }) {
                self.path = path
                self.lock = lock
                self.registry = registry
                return
            }
            // errno 0: the registry is closed (the process is exiting); nothing was made.
            guard errno == EAGAIN || errno == EEXIST else { return nil }
        }
        return nil
    }

    deinit {
        if !done { discard() }
    }

    /// Writes all of `bytes` and checks they reached the file system; false on an error.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lock.write(bytes) && lock.flushed()
    }

    /// Renames the file into place with `rename` (given the temporary path; true on success),
    /// the lock held throughout; on failure the file is left for `discard` (or `deinit`).
    func place(_ rename: (String) -> Bool) -> Bool {
        guard rename(path) else { return false }
        done = true
        registry.remove(path)
        return true
    }

    /// Deletes the file and lets it go.
    func discard() {
        done = true
        unlink(path)
        registry.remove(path)
    }
}
