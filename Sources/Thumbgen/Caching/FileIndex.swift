import Foundation
import Synchronization

/// Identifies local source files by content without re-reading them: a file is hashed once,
/// and its stamp (device, inode, size, modification time to the nanosecond) is kept beside the
/// digest in the `files` table; while the stamp is unchanged, so is the digest (git's index
/// does the same). A digest found by hashing is written with the others of its batch, in one
/// transaction (`flush`), never a write per file.
final class FileIndex: Sendable {
    private let index: IndexDatabase
    /// Where a row read is noted as used.
    private let uses: UseLog
    /// Whether reading a row is not using it, and hashing writes nothing (`--dry-run`, `explain`).
    private let looksOnly: Bool
    /// The digests hashed and not yet written.
    private let pending = Mutex(Pending())
    /// The table's generation: raised by every transaction that writes or removes a row
    /// (`write`, and the `files_removed` trigger), so that while it is what a warm journal saw,
    /// every row is the one it read.
    let generation: Generation

    /// Digests found by hashing and not yet written.
    private struct Pending {
        var rows: [String: (stamp: Stamp, digest: String)] = [:]
        var since = Date().timeIntervalSince1970
    }

    /// Rows gathered before they are written whatever the time, and seconds after which they
    /// are written at the next hash (`UseLog`'s rule).
    static let batch = 1024
    static let interval = 5.0

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

        /// A stamp of these fields.
        init(device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int) {
            self.device = device
            self.inode = inode
            self.size = size
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }

        /// The stamp as 0.2.0's record files wrote it: `DEVICE INODE SIZE SECONDS.NANOSECONDS`.
        init?(text: String) {
            let fields = text.split(separator: " ")
            let time = fields.count == 4 ? fields[3].split(separator: ".") : []
            guard time.count == 2, let device = UInt64(fields[0]), let inode = UInt64(fields[1]),
                  let size = Int64(fields[2]), let seconds = Int(time[0]), let nanoseconds = Int(time[1])
            else { return nil }
            self.init(device: device, inode: inode, size: size, seconds: seconds, nanoseconds: nanoseconds)
        }

        /// The stamp of the file at `path` now; nil when it is gone.
        static func of(_ path: String) -> Stamp? {
            var info = stat()
            return stat(path, &info) == 0 ? Stamp(info) : nil
        }

        /// Its columns in the `files` table, in order.
        var values: [IndexDatabase.Value] {
            [.integer(Int64(bitPattern: device)), .integer(Int64(bitPattern: inode)), .integer(size),
             .integer(Int64(seconds)), .integer(Int64(nanoseconds))]
        }
    }

    /// A row of the table: the digest of a file under a stamp, and the generation that wrote it.
    struct Known: Sendable {
        var digest: String
        /// The `files` generation of the transaction that wrote the row (`generation`).
        var written: Int64
    }

    /// The `files` rows of `index`, their uses noted in `uses`; `looksOnly` for a planner that
    /// only looks.
    init(index: IndexDatabase, uses: UseLog, looksOnly: Bool) {
        self.index = index
        self.uses = uses
        self.looksOnly = looksOnly
        generation = Generation("files", in: index)
    }

    /// The digest of the file at `file` if its stamp is on record and unchanged; nil otherwise
    /// (then `digest(of:)` must read it).
    func knownDigest(of file: String) -> String? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return knownEntry(of: file, stat: info)?.digest
    }

    /// The row for `file` if it holds the stamp `info` gives, noted as used; the warm journal
    /// tells by its `written` that the row still says the same.
    func knownEntry(of file: String, stat info: stat) -> Known? {
        let stamp = Stamp(info)
        if let waiting = pending.withLock({ $0.rows[file] }) {
            return waiting.stamp == stamp ? Known(digest: waiting.digest, written: 0) : nil
        }
        var found: Known?
        var lastUsed = 0.0
        index.query("""
            SELECT digest, written, last_used FROM files
            WHERE path = ? AND device = ? AND inode = ? AND size = ? AND mtime_s = ? AND mtime_ns = ?
            """, [.text(file)] + stamp.values) { row in
            guard let digest = row.text(0), ContentDigest.isValid(digest) else { return }
            found = Known(digest: digest, written: row.integer(1))
            lastUsed = row.real(2)
        }
        if found != nil { uses.used(file: file, lastUsed: lastUsed, looksOnly: looksOnly) }
        return found
    }

    /// The generation that wrote the row of `file`; nil when there is none.
    func written(_ file: String) -> Int64? {
        var written: Int64?
        index.query("SELECT written FROM files WHERE path = ?", [.text(file)]) { written = $0.integer(0) }
        return written
    }

    /// The digest of the file at `file`: from the table when its stamp is unchanged, else by
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
        if let known = knownEntry(of: file, stat: before) { return (known.digest, stamp) }
        guard let digest = ContentDigest.ofFile(descriptor: fd, until: cancellation) else { return nil }
        var after = stat()
        // Recorded only if the file held still while it was read, and was last changed more
        // than a second ago: a write in the same clock tick as the read would otherwise leave
        // the old digest on record under an unchanged stamp ("racy git").
        if !looksOnly, fstat(fd, &after) == 0, Stamp(after) == stamp,
           Date().timeIntervalSince1970 - Double(stamp.seconds) > 1 {
            record(file, stamp: stamp, digest: digest)
        }
        return (digest, stamp)
    }

    private func record(_ file: String, stamp: Stamp, digest: String) {
        let due = pending.withLock { pending -> Pending? in
            pending.rows[file] = (stamp, digest)
            let now = Date().timeIntervalSince1970
            guard pending.rows.count >= Self.batch || now - pending.since >= Self.interval else { return nil }
            defer { pending = Pending() }
            return pending
        }
        if let due { write(due.rows) }
    }

    /// Writes the digests gathered so far, in one transaction under a new generation.
    func flush() {
        let due = pending.withLock { pending -> Pending in
            defer { pending = Pending() }
            return pending
        }
        write(due.rows)
    }

    private func write(_ rows: [String: (stamp: Stamp, digest: String)]) {
        guard !rows.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        var before: Int64?
        let written = index.transaction { transaction in
            before = generation.raise(in: &transaction)
            for (file, row) in rows {
                transaction.execute("""
                    INSERT OR REPLACE INTO files (path, device, inode, size, mtime_s, mtime_ns, digest, written, last_used)
                    VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT value FROM generations WHERE name = 'files'), ?)
                    """, [.text(file)] + row.stamp.values + [.text(row.digest), .real(now)])
            }
        }
        generation.raised(from: before, committed: written)
    }
}
