import Foundation

/// A folder of temporaries (a run's downloads) under a locked-form name, held by the lock of
/// the `.lock` file inside it for as long as it exists: one lock for the whole folder, so the
/// files in it need none of their own.
enum TemporaryFolder {
    /// Makes the folder in `parent` for `name` and locks it; nil (errno says why) when it cannot
    /// be made. The caller removes it (and lets the lock go) when done.
    static func create(in parent: String, for name: String) -> (path: String, lock: LockedFile)? {
        // A new name when a sweeper removed the last one between the folder and its lock.
        for _ in 0..<4 {
            let path = parent + "/" + TemporaryName.locked(for: name)
            guard mkdir(path, 0o777) == 0 else {
                if errno == EEXIST { continue }
                return nil
            }
            if let lock = LockedFile.create(path + "/" + TemporarySweeper.lockName) { return (path, lock) }
            let reason = errno
            rmdir(path)
            guard reason == EAGAIN || reason == ENOENT else {
                errno = reason
                return nil
            }
        }
        return nil
    }
}
