import Foundation
import Synchronization

/// The warm journal of one `--out` folder: what the last run proved about each row that was
/// up to date, kept so that this run can tell the same by `stat`s instead of reading two
/// cache records and hashing the output (git's index and ninja's log do the same).
///
/// An entry says "up to date" only while every file the slow path would read is provably the
/// one it read: the source (`FileStamp`: device, inode, size, modification and change times);
/// its `files` row (by the table's generation, else the row's own) and the output's record in
/// the cache (by its folder's stamp, else its own: `CacheFolderStamps`); and the file under
/// `--out` (its stamp, taken on the file that was hashed, and only once it had stood still for
/// a second). The output
/// key, which hashes the source's digest and everything in the recipe, is part of an entry's
/// key. Anything that differs sends the row down the slow path, which checks by hash, and
/// which the run notes for the next journal.
///
/// The journal is a cache of decisions, never the truth: it lives in the cache
/// (`v1/journals/<SHA-256 of --out's real path>`), names the `--out` folder and the cache it is
/// for, ends in a SHA-256 of its bytes, and is replaced whole by rename at the end of a run
/// (the last writer wins). A missing, foreign, older or damaged one is ignored.
final class WarmJournal: Sendable {
    /// The journal's file.
    let path: String
    private let layout: CacheLayout
    /// The cache's `files` rows, asked when the generation moved.
    private let files: FileIndex
    /// `--out`, open, so that each output's stamp is taken relative to it (`fstatat`).
    private let outputFolder: Int32
    private let identity: JournalIdentity
    /// This run's folder stamps, taken as it opened the journal, and when.
    private let folders: CacheFolderStamps
    private let openedAt: Int64
    private let previous: JournalIndex?
    /// Per folder: whether the previous journal's stamp for it still holds; and whether its
    /// `files` generation does.
    private let stable: [Bool]
    private let filesStable: Bool
    private let notes = Mutex(JournalNotes())
    /// Whether this run writes the next journal (not a dry run).
    let writes: Bool

    /// Seconds after which a journal used is marked so again: the records a journal vouches
    /// for are not marked used one by one (100,000 uses would cost a warm run a third of its
    /// time every ten minutes); the journal's use, a row of the database's `journals`, is
    /// their last use, which `cache prune` reads (`JournalUse`).
    static let markAfter = 600.0
    /// When the journal read was last used (0 without one).
    private let previousUse: Double
    private let index: IndexDatabase

    /// The journal for `outputDirectory` in `cache`; nil when either folder cannot be
    /// resolved. A cache opened to look only reads the journal and writes nothing.
    init?(cache: ThumbnailCache, outputDirectory: URL) {
        guard let real = realpath(outputDirectory.path, nil) else { return nil }
        let outPath = String(cString: real)
        free(real)
        let layout = cache.layout
        guard let out = FileStamp.of(outPath), let base = FileStamp.of(layout.base) else { return nil }
        self.layout = layout
        files = cache.files
        let identity = JournalIdentity(outPath: outPath, outDevice: out.device, outInode: out.inode,
                                       cacheRoot: cache.directory.path, cacheDevice: base.device,
                                       cacheInode: base.inode)
        self.identity = identity
        let folder = open(outPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        outputFolder = folder
        let path = layout.base + "/journals/" + ContentDigest.of(text: outPath)
        self.path = path
        writes = !layout.looksOnly
        openedAt = FileStamp.now
        let folders = CacheFolderStamps(of: layout, files: cache.files)
        self.folders = folders
        let loaded = Self.read(path).flatMap(JournalIndex.init(bytes:))
        let trusted = loaded?.identity == identity ? loaded : nil
        previous = trusted
        index = cache.index
        previousUse = trusted == nil ? 0 : Self.lastUse(of: path, in: cache.index) ?? 0
        stable = trusted.map { folders.stable(against: $0.folders) } ?? []
        filesStable = trusted.map { folders.filesStable(against: $0.folders) } ?? false
    }

    deinit { close(outputFolder) }

    /// The bytes of the journal file at `path`; nil when it cannot be read whole.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              info.st_size <= JournalFormat.maxBytes else { return nil }
        let size = Int(info.st_size)
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = DescriptorIO.readFully(fd, into: UnsafeMutableRawBufferPointer(buffer))
        }
        return bytes.count == size ? bytes : nil
    }

    /// A local source the previous journal knows, unchanged.
    struct Source: Sendable {
        let ordinal: Int
        let digest: String
        /// Where its facts are in the journal, read only if a row needs them noted.
        let offset: Int
    }

    /// The source at `path`, whose stamp is `stamp` now, if the journal knows it under that
    /// stamp and its `files` row is still the one that gave its digest.
    func source(path: String, stamp: FileStamp) -> Source? {
        guard let previous else { return nil }
        var hash = JournalFormat.Hash()
        hash.add(path.utf8)
        let found: (Int, Int, Int64, String)? = previous.bytes.withUnsafeBytes { raw in
            let reader = JournalReader(bytes: raw)
            return previous.probeSources(hash: hash.value) { ordinal in
                let offset = previous.sourceOffsets[ordinal]
                guard reader.equals(offset + JournalFormat.sourceSize, Int(reader.u32(offset)), path.utf8),
                      reader.stamp(offset + JournalSource.stampAt) == stamp else { return nil }
                return (ordinal, offset, reader.i64(offset + JournalSource.writtenAt),
                        reader.hex(offset + JournalSource.digestAt))
            }
        }
        guard let (ordinal, offset, written, digest) = found else { return nil }
        if !filesStable {
            guard written != 0, files.written(path) == written else { return nil }
        }
        return Source(ordinal: ordinal, digest: digest, offset: offset)
    }

    /// The facts of `source` as the next journal keeps them.
    func facts(of source: Source) -> JournalSource? {
        guard let previous else { return nil }
        return previous.bytes.withUnsafeBytes { raw in
            JournalSource.decode(JournalReader(bytes: raw), at: source.offset, end: raw.count)?.0
        }
    }

    /// What the journal vouches for: the output's record and its path under `--out`.
    struct Vouched: Sendable {
        let record: OutputRecord
        let path: String
    }

    /// The output of `request` over `source` under `key`, if the previous journal has it and
    /// its record and its file under `--out` are still the ones it proved. Noted for the next
    /// journal. The key's 32 bytes come from the key itself (converting every row's hex back
    /// cost 1.5% of a warm run).
    func output(of request: ThumbnailRequest, source: Source, sourcePath: String, key outputKey: OutputKey) -> Vouched? {
        let keyBytes = outputKey.digestBytes
        guard let previous, keyBytes.count == 32 else { return nil }
        let row = JournalFormat.keyedRow(template: request.outTemplate, row: request.row)
        let hash = JournalFormat.entryHash(sourcePath: sourcePath, key: keyBytes, template: request.outTemplate, row: row)
        let found: (Int, OutputRecord, String, FileStamp, FileStamp)? = previous.bytes.withUnsafeBytes { raw in
            let reader = JournalReader(bytes: raw)
            return previous.probeEntries(hash: hash) { offset in
                let template = previous.templates[JournalEntry.template(reader, at: offset)]
                guard reader.u64(offset) == hash,
                      Int(reader.u32(offset + JournalEntry.sourceAt)) == source.ordinal,
                      reader.equals(offset + JournalEntry.keyAt, 32, keyBytes),
                      JournalEntry.row(reader, at: offset) == row,
                      reader.equals(template.offset, template.length, request.outTemplate.utf8),
                      let record = JournalEntry.record(reader, at: offset) else { return nil }
                return (offset, record, JournalEntry.path(reader, at: offset),
                        reader.recordStamp(offset + JournalEntry.recordStampAt), reader.stamp(offset + JournalEntry.outStampAt))
            }
        }
        guard let (offset, record, path, recordStamp, outStamp) = found else { return nil }
        if !stable[CacheFolderStamps.outputs(keyBytes[0])] {
            let recordPath = layout.path(.outputs, outputKey.digest)
            guard FileStamp.of(recordPath)?.isSameRecord(as: recordStamp) == true else { return nil }
        }
        guard FileStamp.of(path, in: outputFolder) == outStamp else { return nil }
        if writes {
            notes.withLock { $0.keep(entry: offset, source: source.ordinal, from: previous) }
        }
        return Vouched(record: record, path: path)
    }

    /// Notes an output the slow path proved up to date: `request`'s, at `path` under `--out`,
    /// described by `record` (whose file had `recordStamp`) under `key`, over `source`; `out`
    /// is the stamp of the file hashed, first looked at `seenAt`. Not noted unless that file
    /// had stood still long enough for its stamp to stand for what was hashed.
    func note(_ request: ThumbnailRequest, source: JournalSource, key: String, record: OutputRecord,
              recordStamp: FileStamp, path: String, out: FileStamp, seenAt: Int64) {
        guard writes, out.settled(seenAt: seenAt), let keyBytes = JournalFormat.raw(hex: key) else { return }
        let row = JournalFormat.keyedRow(template: request.outTemplate, row: request.row)
        let entry = JournalEntry(
            hash: JournalFormat.entryHash(sourcePath: source.path, key: keyBytes, template: request.outTemplate, row: row),
            source: 0, template: request.outTemplate, path: path, row: row, key: keyBytes, record: record,
            recordStamp: recordStamp, outStamp: out)
        notes.withLock { $0.add(entry, source: source) }
    }

    /// What this run has noted so far: rows the previous journal vouched for (`kept`), and
    /// rows the slow path proved up to date (`fresh`).
    var counts: (kept: Int, fresh: Int) { notes.withLock { $0.counts } }

    /// Writes the next journal in place of this one, atomically (a temporary file, then a
    /// rename), unless it would say the same; a run that noted nothing removes it.
    func save() {
        guard writes else { return }
        var settled = folders.settled(seenAt: openedAt)
        // The run's own writes of `files` (written before this) do not cost the next run its trust.
        if let own = files.generationSinceTracked(), settled.filesGeneration != 0 {
            settled = settled.with(filesGeneration: own)
        }
        let written: Bool = notes.withLock { notes in
            guard !notes.isEmpty else { return false }
            // A steady warm run found the journal true throughout: it stays as it is, marked
            // used (its use stands for its records') if due.
            if notes.repeats(previous, folders: settled) {
                if Date().timeIntervalSince1970 - previousUse > Self.markAfter { markUsed() }
                return true
            }
            mkdir(layout.base + "/journals", 0o777)
            guard let temporary = TemporaryFile(in: layout.temporaryFolder, for: "journal", registry: .shared)
            else { return false }
            guard notes.write(identity: identity, folders: settled, previous: previous, to: temporary.write),
                  temporary.place({ rename($0, path) == 0 }) else {
                temporary.discard()
                return false
            }
            markUsed()
            return true
        }
        if !written {
            unlink(path)
            index.execute("DELETE FROM journals WHERE name = ?", [.text(Self.name(of: path))])
        }
    }

    /// Records that the journal was used now (served a run, or was written by one).
    private func markUsed() {
        index.execute("""
            INSERT INTO journals (name, last_used) VALUES (?, ?)
            ON CONFLICT (name) DO UPDATE SET last_used = excluded.last_used
            """, [.text(Self.name(of: path)), .real(Date().timeIntervalSince1970)])
    }

    /// The name a journal's use is kept under: its file's.
    static func name(of path: String) -> String { (path as NSString).lastPathComponent }

    /// When the journal at `path` was last used, as the database says; nil when it does not.
    static func lastUse(of path: String, in index: IndexDatabase) -> Double? {
        var used: Double?
        index.query("SELECT last_used FROM journals WHERE name = ?", [.text(name(of: path))]) { used = $0.real(0) }
        return used
    }
}
