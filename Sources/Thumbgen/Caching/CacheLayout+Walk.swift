import Foundation

/// Listing and removing whole entries, for `thumbgen cache stats | prune | verify | clear`.
///
/// Everything here works from `lstat`, never follows a link, and never refreshes an entry's
/// "last used" mark: looking after the cache is not using it.
extension CacheLayout {
    /// One file in the cache as `lstat` saw it.
    struct Entry: Sendable {
        /// The file name (an entry's digest or key, or a temporary name).
        var name: String
        var path: String
        /// Bytes of content (the apparent size, as `du --apparent-size` counts).
        var size: Int64
        /// The modification time in seconds since 1970: when the entry was last used.
        var modified: Double
        var isDirectory: Bool
    }

    /// What became of an entry that was to be removed.
    enum Removal: Equatable {
        /// Removed by this call.
        case removed
        /// Already gone (another process removed it).
        case vanished
        /// Left alone: it changed since it was listed, so someone is using it.
        case inUse
    }

    /// The entry at `path` named `name`, or nil when it is missing.
    func entry(at path: String, name: String) -> Entry? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return Entry(name: name, path: path, size: Int64(info.st_size), modified: modified,
                     isDirectory: (info.st_mode & S_IFMT) == S_IFDIR)
    }

    /// Every regular file of `kind`, across its two-hex-digit fan-out folders.
    func entries(_ kind: Kind) -> [Entry] {
        var found: [Entry] = []
        for fan in names(in: folder(kind)) where fan.utf8.count == 2 {
            let fanFolder = folder(kind) + "/" + fan
            for name in names(in: fanFolder) {
                guard let entry = entry(at: fanFolder + "/" + name, name: name), !entry.isDirectory
                else { continue }
                found.append(entry)
            }
        }
        return found
    }

    /// The names inside `folder` (none when it cannot be read).
    func names(in folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    }

    /// Removes `entry` unless its modification time moved since it was listed: a reader marks
    /// an entry it uses, and a writer replaces it, so a changed mark means a run wants it.
    /// Narrows the race with a concurrent run rather than closing it; losing the race costs
    /// that run a rebuild, never a wrong answer.
    func remove(_ entry: Entry) -> Removal {
        guard let now = self.entry(at: entry.path, name: entry.name) else { return .vanished }
        guard now.modified == entry.modified else { return .inUse }
        if unlink(entry.path) == 0 { return .removed }
        return errno == ENOENT ? .vanished : .inUse
    }

    /// Removes the file or folder (with everything inside) at `path`.
    @discardableResult
    func removeTree(_ path: String) -> Bool {
        if unlink(path) == 0 || errno == ENOENT { return true }
        return (try? FileManager.default.removeItem(atPath: path)) != nil
    }

    /// The regular files under `path` (itself, when it is a file), their bytes, and the newest
    /// modification time among them and the folders.
    func tree(_ path: String) -> (files: Int, bytes: Int64, newest: Double) {
        guard let top = entry(at: path, name: (path as NSString).lastPathComponent) else {
            return (0, 0, 0)
        }
        guard top.isDirectory else { return (1, top.size, top.modified) }
        var totals = (files: 0, bytes: Int64(0), newest: top.modified)
        for name in names(in: path) {
            let inner = tree(path + "/" + name)
            totals.files += inner.files
            totals.bytes += inner.bytes
            totals.newest = max(totals.newest, inner.newest)
        }
        return totals
    }
}
