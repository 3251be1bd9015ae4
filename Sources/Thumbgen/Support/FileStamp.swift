import Foundation

/// What `stat` says of a file, enough to tell that it is the very file it was, unchanged: the
/// device and inode (which file), its size, and its modification and status-change times to
/// the nanosecond. Every write, truncation, rename into place, `touch` or `chmod` moves the
/// change time, which nothing but the clock sets; the modification time alone can be set back.
///
/// The warm journal (`WarmJournal`) keeps one per file its decisions stand on.
struct FileStamp: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    /// Modification time, nanoseconds since 1970.
    var modified: Int64
    /// Status-change time, nanoseconds since 1970.
    var changed: Int64

    init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device; self.inode = inode; self.size = size
        self.modified = modified; self.changed = changed
    }

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// The stamp of the file at `path` (symbolic links followed), or nil when there is none.
    static func of(_ path: String) -> FileStamp? {
        var info = stat()
        return stat(path, &info) == 0 ? FileStamp(info) : nil
    }

    /// The stamp of the file at `path` relative to the open folder `folder` (symbolic links
    /// followed), or nil when there is none: the kernel walks only `path`'s own components,
    /// not the folder's again (a warm run stats every row's output).
    static func of(_ path: String, in folder: Int32) -> FileStamp? {
        var info = stat()
        return fstatat(folder, path, &info, 0) == 0 ? FileStamp(info) : nil
    }

    /// The stamp of the file at the C string `path`, or nil when there is none.
    static func of(cString path: UnsafePointer<CChar>) -> FileStamp? {
        var info = stat()
        return stat(path, &info) == 0 ? FileStamp(info) : nil
    }

    /// Whether this and `other` are the same cache record, unchanged: the same inode and
    /// times (what the journal keeps of a record; it is replaced only by a rename, so its
    /// device and size cannot change under the same inode).
    func isSameRecord(as other: FileStamp) -> Bool {
        inode == other.inode && modified == other.modified && changed == other.changed
    }

    /// The later of the two times, in nanoseconds since 1970: when the file last changed.
    var lastChange: Int64 { max(modified, changed) }

    /// Whether a file seen with this stamp at `seenAt` (nanoseconds since 1970, taken before
    /// it was looked at) had last changed long enough before for the stamp to stand for what
    /// was read: file times move in clock ticks, and a write in the same tick as the one that
    /// was read would leave the stamp as it is ("racy git"). One second is many ticks.
    func settled(seenAt: Int64) -> Bool {
        seenAt - lastChange > 1_000_000_000
    }

    /// Now, in nanoseconds since 1970, as file times count.
    static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
