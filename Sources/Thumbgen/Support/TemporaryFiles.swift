import Foundation
import Synchronization

/// The temporary files and folders being written right now, so that an interrupted run removes
/// them, each with the lock that tells other processes' sweepers it is in use.
///
/// `removeAll` closes the set: a file made after it is removed by whoever made it, and a file
/// made through `create` is not made at all. Without that, a writer that created its file
/// just as a second signal called `removeAll` left it behind (seen with 128 rows in flight).
public final class TemporaryFiles: Sendable {
    /// The process-wide set, used by the CLI's signal handler.
    public static let shared = TemporaryFiles()

    private struct State {
        var paths: [String: LockedFile?] = [:]
        /// `removeAll` has run: the process is exiting.
        var closed = false
    }

    private let state = Mutex(State())

    /// Makes an empty set.
    public init() {}

    /// Makes a file with `make` (which creates `path` and returns its lock, or nil) and
    /// registers it, under the set's lock, so that `removeAll` either sees it or runs before
    /// it exists; nil, without calling `make`, once `removeAll` has run.
    func create(_ path: String, _ make: () -> LockedFile?) -> LockedFile? {
        state.withLock { state -> LockedFile? in
            guard !state.closed, let lock = make() else { return nil }
            state.paths[path] = .some(lock)
            return lock
        }
    }

    /// Registers the file at `path`, made by the caller, and locks it (when it can) until
    /// `remove`: for writers that create their file themselves (the report, the contact sheet).
    func insert(_ path: String) {
        let lock: LockedFile?
        if case .taken(let taken) = LockedFile.claim(path) { lock = taken } else { lock = nil }
        register(path, lock)
    }

    /// Registers the file or folder at `path`, whose lock the caller already holds; the set
    /// keeps it held until `remove`.
    func insert(_ path: String, holding lock: LockedFile) {
        register(path, lock)
    }

    /// Forgets `path` (renamed into place or deleted) and lets its lock go.
    func remove(_ path: String) {
        _ = state.withLock { $0.paths.removeValue(forKey: path) }
    }

    /// Deletes every temporary file (or folder, with its contents) still in flight, and closes
    /// the set. Their locks stay held: the process is about to exit, which lets them go.
    public func removeAll() {
        let paths = state.withLock { state -> [String] in
            state.closed = true
            return Array(state.paths.keys)
        }
        paths.forEach(Self.delete)
    }

    /// Adds `path`, or deletes it at once if the set is already closed.
    private func register(_ path: String, _ lock: LockedFile?) {
        let added = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.paths[path] = .some(lock)
            return true
        }
        if !added { Self.delete(path) }
    }

    private static func delete(_ path: String) {
        if unlink(path) != 0 { try? FileManager.default.removeItem(atPath: path) }
    }
}
