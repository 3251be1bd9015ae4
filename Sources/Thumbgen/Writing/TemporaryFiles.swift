import Foundation
import Synchronization

/// The temporary files and folders being written right now, so that an interrupted run removes
/// them, each with the lock that tells other processes' sweepers it is in use.
public final class TemporaryFiles: Sendable {
    /// The process-wide set, used by the CLI's signal handler.
    public static let shared = TemporaryFiles()

    private let paths = Mutex<[String: LockedFile?]>([:])

    /// Makes an empty set.
    public init() {}

    /// Registers the file at `path`, made by the caller, and locks it (when it can) until
    /// `remove`: for writers that create their file themselves (the report, the contact sheet).
    func insert(_ path: String) {
        let lock: LockedFile?
        if case .taken(let taken) = LockedFile.claim(path) { lock = taken } else { lock = nil }
        paths.withLock { $0[path] = .some(lock) }
    }

    /// Registers the file or folder at `path`, whose lock the caller already holds; the set
    /// keeps it held until `remove`.
    func insert(_ path: String, holding lock: LockedFile) {
        paths.withLock { $0[path] = .some(lock) }
    }

    /// Forgets `path` (renamed into place or deleted) and lets its lock go.
    func remove(_ path: String) {
        _ = paths.withLock { $0.removeValue(forKey: path) }
    }

    /// Deletes every temporary file (or folder, with its contents) still in flight. Their locks
    /// stay held: the process is about to exit, which lets them go.
    public func removeAll() {
        for path in paths.withLock({ Array($0.keys) }) where unlink(path) != 0 {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
