import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's notifications (inotify) of what changes under a set of folders, in batches:
/// `--watch`'s eyes. No polling: the thread sleeps in `poll` until the kernel has something.
///
/// Every folder under the roots is watched (inotify watches one folder, not a tree), but those
/// named in `skipping` (the output folder, the cache; a file named there is not watched either)
/// and those whose names start with a dot.
/// A folder made or moved in later is watched from then on, and its files count as changed.
public final class FolderWatch {
    private let descriptor: Int32
    private let skipping: [String]
    /// Watched folders by watch descriptor.
    private var folders: [Int32: String] = [:]
    /// What the events are asked for: files written and closed, moved in or out, made or
    /// deleted; a watched folder itself deleted or moved.
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
                                     | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    /// A changed path, or a sign that some were missed (the kernel's queue overflowed).
    public enum Change: Hashable, Sendable {
        case path(String)
        case overflow
    }

    /// Why watching cannot start.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts watching `roots` (folders) and every folder under them, but `skipping` and dot
    /// folders.
    public init(roots: [String], skipping: [String]) throws(Failure) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Failure(description: "cannot watch files: \(String(cString: strerror(errno)))") }
        // Paths with their links resolved, as the walk compares them: a root that is a link is
        // watched where it leads (inotify is told not to follow links).
        self.skipping = skipping.map(WalkRules.canonical)
        for root in roots { try watchTree(WalkRules.canonical(root), changed: nil) }
    }

    deinit { close(descriptor) }

    /// How many folders are watched.
    public var folderCount: Int { folders.count }

    /// Waits for a change, then for the changes to settle: the batch ends `quiet` seconds after
    /// the last event, or `longest` seconds after the first, whichever comes first (an editor's
    /// save is a few events within milliseconds; a copy of 500 files a stream of them).
    /// `wake`, when readable, ends the wait with no changes (a signal's self-pipe).
    public func nextBatch(quiet: Double = 0.1, longest: Double = 0.4, wake: Int32? = nil) -> Set<Change> {
        var changes = Set<Change>()
        var firstAt: Double?
        while true {
            let now = Self.seconds()
            var timeout: Int32 = -1
            if let firstAt {
                let left = min(quiet, firstAt + longest - now)
                if left <= 0 { return changes }
                timeout = Int32(max(1, left * 1000))
            }
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            if let wake { fds.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno == EINTR { continue }
            if fds.count > 1 && fds[1].revents != 0 { return [] }
            if ready == 0 { return changes }
            let before = changes.count
            readEvents(into: &changes)
            if firstAt == nil && changes.count > before { firstAt = Self.seconds() }
        }
    }

    private static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Reads what the kernel has queued.
    private func readEvents(into changes: inout Set<Change>) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            var offset = 0
            while offset + 16 <= count {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                offset += 16 + length
                handle(wd: wd, mask: mask, name: String(decoding: nameBytes, as: UTF8.self), into: &changes)
            }
        }
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into changes: inout Set<Change>) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            changes.insert(.overflow)
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            folders[wd] = nil
            return
        }
        guard let folder = folders[wd] else { return }
        if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
            changes.insert(.path(folder))
            return
        }
        // Hidden names are no image of the walk's: the runs' own temporary files (a report or an
        // index built under a dot name, renamed into place), editors' swap files.
        guard !name.isEmpty, !name.hasPrefix(".") else { return }
        let path = folder + "/" + name
        // A file the runs write themselves (the event log, the report) is no change to answer.
        guard !skipping.contains(path) else { return }
        if mask & UInt32(IN_ISDIR) != 0 {
            // A folder made or moved in: watched, and what it holds already counts as changed.
            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { try? watchTree(path, changed: &changes) }
            changes.insert(.path(path))
            return
        }
        // A file made is counted once it is written and closed (or moved in): a copy still
        // under way would be read half-written.
        if mask & UInt32(IN_CREATE) != 0 && mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) == 0 { return }
        changes.insert(.path(path))
    }

    /// Watches `root` and the folders under it; with `changed`, notes their files as changed.
    private func watchTree(_ root: String, changed: UnsafeMutablePointer<Set<Change>>?) throws(Failure) {
        var pending = [root]
        while let folder = pending.popLast() {
            guard !skipping.contains(folder) else { continue }
            let wd = inotify_add_watch(descriptor, folder, Self.mask)
            if wd < 0 {
                if errno == ENOSPC {
                    throw Failure(description: "cannot watch \(folder): too many folders for fs.inotify.max_user_watches")
                }
                continue
            }
            folders[wd] = folder
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names where !name.hasPrefix(".") {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    pending.append(path)
                } else {
                    changed?.pointee.insert(.path(path))
                }
            }
        }
    }

    private func watchTree(_ root: String, changed: inout Set<Change>) throws(Failure) {
        try withUnsafeMutablePointer(to: &changed) { pointer throws(Failure) in try watchTree(root, changed: pointer) }
    }
}
