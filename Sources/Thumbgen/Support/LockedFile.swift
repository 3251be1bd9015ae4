import Foundation
import Synchronization

/// An open file on which this process holds an exclusive `flock`: the one proof, to every
/// sweeper, that the temporary it stands for still has a live writer.
///
/// Why `flock` rather than the host and process id a temporary's name used to carry: the kernel
/// drops the lock when its process dies, however it dies (SIGKILL, the OOM killer), and the
/// lock lives in the file system, so it means the same to every process that can see the file:
/// in another PID namespace (containers sharing a hostname and a volume), or on another host
/// (Linux emulates `flock` with byte-range locks over NFS). It belongs to the open file, not
/// the process, so two descriptors in one process conflict: a test can stand in for a writer.
/// Descriptors are close-on-exec, so no child process inherits a lock.
final class LockedFile: Sendable {
    /// The descriptor, open for reading and writing; closed (and the lock dropped) in `deinit`.
    let descriptor: Int32
    /// The path the file was locked at.
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
        Self.heldHere.withLock { $0[path, default: 0] += 1 }
    }

    deinit {
        Self.heldHere.withLock { held in
            let count = held[path, default: 1] - 1
            held[path] = count > 0 ? count : nil
        }
        close(descriptor)
    }

    /// Paths this process holds locks on, with how many times. A sweeper skips them without
    /// trying their lock: over NFS, `flock` becomes a byte-range lock, which never conflicts
    /// within one process.
    private static let heldHere = Mutex<[String: Int]>([:])

    /// Whether this process holds the lock of the file at `path`.
    static func isHeldHere(_ path: String) -> Bool {
        heldHere.withLock { $0[path] != nil }
    }

    /// Creates the file at `path`, which must not exist, and locks it; nil (errno says why) when
    /// it cannot be made. A sweeper that found the file between its creation and the lock may
    /// have removed it: then this returns nil with errno `EAGAIN`, and the caller tries a new
    /// name. Once the lock is held and the file still has its name, no sweeper can take it.
    static func create(_ path: String, mode: mode_t = 0o644) -> LockedFile? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return nil }
        let file = LockedFile(descriptor: descriptor, path: path)
        // Blocking: a sweeper holds the lock only while it removes the file, then this sees it gone.
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { return nil }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        guard info.st_nlink > 0 else {
            errno = EAGAIN
            return nil
        }
        return file
    }

    /// What trying the lock of another writer's file found.
    enum Claim {
        /// A live process holds it.
        case held
        /// Nobody held it; this process holds it now, until the value goes away.
        case taken(LockedFile)
        /// There is no file at the path.
        case missing
        /// The file cannot be opened or locked by this process (another user's, a read-only or
        /// lockless file system): nothing can be concluded.
        case unknown
    }

    /// Tries, without waiting, to lock the regular file at `path` (never following a link).
    static func claim(_ path: String) -> Claim {
        let flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        var descriptor = open(path, O_RDWR | flags)
        // A local file system locks read-only descriptors too; NFS then says EBADF below.
        if descriptor < 0 && (errno == EACCES || errno == EROFS) { descriptor = open(path, O_RDONLY | flags) }
        guard descriptor >= 0 else { return errno == ENOENT ? .missing : .unknown }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return .unknown
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let held = errno == EWOULDBLOCK
            close(descriptor)
            return held ? .held : .unknown
        }
        let file = LockedFile(descriptor: descriptor, path: path)
        // The writer may have renamed its file into place between the open and the lock: then
        // the lock taken is on its finished file, and the path names nothing of this claim.
        var now = stat()
        guard lstat(path, &now) == 0, now.st_ino == info.st_ino, now.st_dev == info.st_dev else {
            return .missing
        }
        return .taken(file)
    }

    /// Writes all of `bytes`; false on an error.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        DescriptorIO.writeAll(descriptor, bytes)
    }

    /// Whether what was written reached the file system, as far as `close` would say (NFS
    /// reports a failed write back only there), while the lock stays held: closing a duplicate
    /// descriptor asks the same question of the same open file without letting the lock go.
    func flushed() -> Bool {
        let duplicate = dup(descriptor)
        guard duplicate >= 0 else { return false }
        return close(duplicate) == 0
    }
}
