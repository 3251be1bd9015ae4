import Foundation

/// Tells a temporary file or folder whose writer is gone from one still being written, and
/// removes the first kind. The rules (`TemporaryName` names the forms):
///
/// - whatever the name, a file or folder whose lock a live process holds (a folder's: its
///   `.lock` file's) is kept, however old it is;
/// - a locked-form file or folder whose lock is free is stale at once: its writer locked it
///   before using it, and the kernel let go when the writer died;
/// - a locked-form folder without its `.lock` file is stale once it has not changed for
///   `unlockedGrace` (its writer died between making the folder and the file, or is making it).
///
/// A sweeper removes what it found stale while holding the lock it took, and a writer checks,
/// once it holds its new file's lock, that the file still has its name (`LockedFile.create`):
/// a sweeper that got in between creation and lock costs the writer a new name, never its data.
enum TemporarySweeper {
    /// What a look at one temporary found.
    enum Finding {
        /// Leave it: its writer may still run (or it vanished meanwhile).
        case keep
        /// Its writer is gone. The lock taken (nil for a folder made without one) is held until
        /// the value goes away, so remove it first.
        case stale(LockedFile?)
        /// Not a thumbgen temporary by its name, or its lock could not be tried: the caller's
        /// own rule (cache prune's hour) decides, if it has one.
        case undecided
    }

    /// The file inside a download folder whose lock stands for the whole folder.
    static let lockName = ".lock"

    /// How long a locked-form folder without its `.lock` file is left alone: its writer makes the
    /// file straight after the folder, so a minute is far more than it needs.
    static let unlockedGrace: Double = 60

    /// Looks at the file or folder `name` at `path`; `now` is in seconds since 1970.
    static func examine(_ path: String, name: String, now: Double) -> Finding {
        let isTemporary = TemporaryName.isTemporary(name)
        if LockedFile.isHeldHere(path) || LockedFile.isHeldHere(path + "/" + lockName) { return .keep }
        var info = stat()
        guard lstat(path, &info) == 0 else { return .keep }
        let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
        guard isFolder || (info.st_mode & S_IFMT) == S_IFREG else { return .undecided }
        switch LockedFile.claim(isFolder ? path + "/" + lockName : path) {
        case .held:
            return .keep
        case .unknown:
            return .undecided
        case .taken(let lock):
            return isTemporary ? .stale(lock) : .undecided
        case .missing:
            guard isFolder else { return .keep }  // renamed into place or removed meanwhile
            guard isTemporary else { return .undecided }
            return now - measure(path).newest > unlockedGrace ? .stale(nil) : .keep
        }
    }

    /// Removes every temporary directly inside `folder` whose writer is gone; returns how many
    /// and their bytes.
    /// - Parameters:
    ///   - filesOnly: regular files only (an output or report folder: thumbgen makes no
    ///     temporary folders there, and the user's folders are not its business).
    ///   - prefix: only names that start with it, when given (a shared folder such as the
    ///     system's temporary folder holds other programs' files).
    ///   - ownedOnly: only what belongs to this process's user (a world-writable folder).
    ///   - undecidedAfter: also remove what `examine` leaves undecided, anything at all, once
    ///     nothing in it changed for this many seconds (the cache's own temporary folder,
    ///     which holds nothing but temporaries).
    @discardableResult
    static func sweep(_ folder: String, filesOnly: Bool = false, prefix: String? = nil,
                      ownedOnly: Bool = false, undecidedAfter: Double? = nil,
                      now: Double = Date().timeIntervalSince1970) -> (count: Int, bytes: Int64) {
        // Without a rule of its own for what is not a temporary by name, only names that can
        // be one are looked at: an output folder holds a hundred thousand files that are not.
        let listed = undecidedAfter == nil ? hiddenNames(in: folder)
            : try? FileManager.default.contentsOfDirectory(atPath: folder)
        guard let names = listed else { return (0, 0) }
        var swept = (count: 0, bytes: Int64(0))
        for name in names where prefix.map(name.hasPrefix) ?? true {
            if undecidedAfter == nil && !TemporaryName.isTemporary(name) { continue }
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            if filesOnly && type != S_IFREG { continue }
            if ownedOnly && info.st_uid != geteuid() { continue }
            var freed: Int64?
            switch examine(path, name: name, now: now) {
            case .keep:
                continue
            case .stale(let lock):
                freed = remove(path)
                withExtendedLifetime(lock) {}
            case .undecided:
                guard let age = undecidedAfter, now - measure(path).newest > age else { continue }
                freed = remove(path)
            }
            if let freed {
                swept.count += 1
                swept.bytes += freed
            }
        }
        return swept
    }

    /// The names in `folder` that start with a dot (as every temporary's does), other than
    /// `.` and `..`, read with `readdir` so that the others cost no `String`; nil when the
    /// folder cannot be read.
    private static func hiddenNames(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name: String? = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let bytes = raw.prefix { $0 != 0 }
                guard bytes.first == UInt8(ascii: "."), !bytes.elementsEqual([46]), !bytes.elementsEqual([46, 46])
                else { return nil }
                return String(decoding: bytes, as: UTF8.self)
            }
            if let name { names.append(name) }
        }
        return names
    }

    /// Removes the file or folder at `path` with everything in it; returns its bytes, or nil
    /// when it could not be removed (or was already gone).
    private static func remove(_ path: String) -> Int64? {
        let bytes = measure(path).bytes
        if unlink(path) == 0 { return bytes }
        guard errno == EISDIR || errno == EPERM else { return nil }
        return (try? FileManager.default.removeItem(atPath: path)) != nil ? bytes : nil
    }

    /// The bytes of the regular files under `path` (itself, when it is a file) and the newest
    /// modification time (seconds since 1970) among them and the folders; links are not followed.
    static func measure(_ path: String) -> (bytes: Int64, newest: Double) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return (0, 0) }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            return ((info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : 0, modified)
        }
        var total = (bytes: Int64(0), newest: modified)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            let inner = measure(path + "/" + name)
            total.bytes += inner.bytes
            total.newest = max(total.newest, inner.newest)
        }
        return total
    }
}
