import Foundation

/// Identifies local source files by content without re-reading them: a file is hashed once,
/// and its stamp (device, inode, size, modification time to the nanosecond) is kept beside the
/// digest; while the stamp is unchanged, so is the digest (git's index does the same).
struct FileIndex: Sendable {
    let layout: CacheLayout
    /// Where a record read is noted as used (never by touching its file).
    let uses: UseLog

    /// What `stat` says of a file, enough to notice it changed.
    struct Stamp: Equatable, Sendable {
        var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            seconds = info.st_mtim.tv_sec
            nanoseconds = info.st_mtim.tv_nsec
        }

        var text: String { "\(device) \(inode) \(size) \(seconds).\(nanoseconds)" }

        /// The stamp of the file at `path` now; nil when it is gone.
        static func of(_ path: String) -> Stamp? {
            var info = stat()
            return stat(path, &info) == 0 ? Stamp(info) : nil
        }
    }

    private func path(for file: String) -> String { layout.path(.files, Self.name(for: file)) }

    /// The entry name a stamp for `file` is stored under.
    static func name(for file: String) -> String { ContentDigest.of(text: file) }

    /// The path, stamp text and digest `entry` holds, or nil when a field is missing or
    /// malformed.
    static func decode(_ entry: CacheRecord) -> (path: String, stamp: String, digest: String)? {
        guard let path = entry["path"], let stamp = entry["stamp"], let digest = entry["digest"],
              ContentDigest.isValid(digest) else { return nil }
        return (path, stamp, digest)
    }

    /// The digest of the file at `file` if its stamp is on record and unchanged; nil otherwise
    /// (then `digest(of:)` must read it).
    func knownDigest(of file: String) -> String? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return knownDigest(of: file, stat: info)
    }

    /// The same for a file whose `stat` the caller has just taken.
    func knownDigest(of file: String, stat info: stat) -> String? {
        recorded(file, stamp: Stamp(info))?.digest
    }

    /// `knownDigest(of:stat:)`, with the stamp of the record it came from (as it is after
    /// the read): the warm journal tells by it that the record still says the same.
    func knownEntry(of file: String, stat info: stat) -> (digest: String, record: FileStamp)? {
        recorded(file, stamp: Stamp(info))
    }

    /// Where the record for `file` is: `v1/files/ab/<SHA-256 of the path>`.
    func recordPath(for file: String) -> String { path(for: file) }

    /// The digest of the file at `file`: from the record when its stamp is unchanged, else by
    /// reading it (and then recorded). Nil when the file cannot be read, or `cancellation` was
    /// pressed while it was.
    /// The stamp returned is the one the digest belongs to: a reader of the file that finds
    /// another stamp afterwards has read other bytes.
    func digest(of file: String, cancellation: Cancellation? = nil) -> (digest: String, stamp: Stamp)? {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { return nil }
        let stamp = Stamp(before)
        if let known = recorded(file, stamp: stamp) { return (known.digest, stamp) }
        guard let digest = ContentDigest.ofFile(descriptor: fd, until: cancellation) else { return nil }
        var after = stat()
        // Recorded only if the file held still while it was read, and was last changed more
        // than a second ago: a write in the same clock tick as the read would otherwise leave
        // the old digest on record under an unchanged stamp ("racy git").
        if fstat(fd, &after) == 0, Stamp(after) == stamp,
           Date().timeIntervalSince1970 - Double(stamp.seconds) > 1 {
            var entry = CacheRecord()
            entry["path"] = file
            entry["stamp"] = stamp.text
            entry["digest"] = digest
            layout.write(entry.encoded, to: path(for: file))
        }
        return (digest, stamp)
    }

    private func recorded(_ file: String, stamp: Stamp) -> (digest: String, record: FileStamp)? {
        let name = Self.name(for: file)
        guard let (bytes, written, record) = layout.readStamped(layout.path(.files, name), markingUsedAfter: nil),
              let entry = CacheRecord(decoding: bytes).flatMap(Self.decode),
              entry.path == file, entry.stamp == stamp.text else { return nil }
        uses.used(.files, name, written: written, looksOnly: layout.looksOnly)
        return (entry.digest, record)
    }
}
