import Foundation
import Synchronization

/// The temporary files and folders being written right now, so that an interrupted run removes
/// them, each with the lock that tells other processes' sweepers it is in use.
///
/// `removeAll` closes the set: a file made after it is removed by whoever made it, and a file
/// made through `create` is not made at all. Without that, a writer that created its file
/// just as a second signal called `removeAll` left it behind (seen with 128 rows in flight).
/// A file is made outside the set's lock (creating one can take milliseconds on a folder
/// whose files were just deleted, and every writing thread waited for it, spinning in the
/// kernel: 4% of a ten-size run's cycles); `removeAll` waits for the ones being made, whose
/// makers delete them under the lock once they see the set closed.
public final class TemporaryFiles: Sendable {
    /// The process-wide set, used by the CLI's signal handler.
    public static let shared = TemporaryFiles()

    private struct State {
        var paths: [String: LockedFile?] = [:]
        /// `removeAll` has run: the process is exiting.
        var closed = false
        /// Files `create` is making, outside the lock.
        var making = 0
    }

    private let state = Mutex(State())

    /// Makes an empty set.
    public init() {}

    /// Makes a file with `make` (which creates `path` and returns its lock, or nil) and
    /// registers it, so that `removeAll` either sees it or waits for it and finds it deleted;
    /// nil, without calling `make`, once `removeAll` has run, and nil (the file deleted) when
    /// it ran while the file was being made.
    func create(_ path: String, _ make: () -> LockedFile?) -> LockedFile? {
        let open = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.making += 1
            return true
        }
        guard open else { return nil }
        let made = make()
        return state.withLock { state -> LockedFile? in
            state.making -= 1
            guard let made else { return nil }
            guard !state.closed else {
                // Under the lock: `removeAll` returns only once this is done.
                Self.delete(path)
                return nil
            }
            state.paths[path] = .some(made)
            return made
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
        // The files being made: each maker deletes its own, as it sees the set closed. A
        // second at most: a maker stuck in the file system must not keep the process alive.
        let patience = ContinuousClock.now + .seconds(1)
        while state.withLock({ $0.making > 0 }), ContinuousClock.now < patience {
            usleep(1000)
        }
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
