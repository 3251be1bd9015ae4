import Foundation
import Synchronization

/// The warm journal of one `--out` folder: what the last run proved about each row that was
/// up to date, kept so that this run can tell the same by `stat`s instead of reading two
/// cache records and hashing the output (git's index and ninja's log do the same).
///
/// An entry says "up to date" only while every file the slow path would read is provably the
/// one it read: the source (`FileStamp`: device, inode, size, modification and change times);
/// its `files` row and the output's record in the cache (by the database's generations, else
/// each by its own: the row's generation, the record file's stamp); and the file under `--out`
/// (its stamp, taken on the file that was hashed, and only once it had stood still for a
/// second). The output key, which hashes the source's digest and everything in the recipe, is
/// part of an entry's key. Anything that differs sends the row down the slow path, which
/// checks by hash, and which the run notes for the next journal.
///
/// The journal is a cache of decisions, never the truth: three tables of the cache's database
/// (`journals`, `journal_sources`, `journal_entries`), keyed by `--out`'s real path and
/// checked against that folder's device and inode, and replaced whole in one transaction at
/// the end of a run (the last writer wins), except that a run over some of its rows that proved
/// none the slow way leaves it as it is. A row that does not read whole is left out.
final class WarmJournal: Sendable {
    /// `--out`'s real path: what the journal is found by.
    let outPath: String
    private let layout: CacheLayout
    /// The cache's `files` rows, asked when the generation moved.
    private let files: FileIndex
    /// The output records' generation.
    private let records: Generation
    /// `--out`, open, so that each output's stamp is taken relative to it (`fstatat`).
    private let outputFolder: Int32
    private let identity: JournalIdentity
    /// The generations as this run opened the journal.
    private let seen: JournalGenerations
    private let previous: JournalIndex?
    /// Whether the previous journal's generations still hold.
    private let filesStable: Bool
    private let recordsStable: Bool
    private let notes = Mutex(JournalNotes())
    /// Whether this run writes the next journal (not a dry run).
    let writes: Bool

    /// Seconds after which a journal used is marked so again: the records a journal vouches
    /// for are not marked used one by one (100,000 uses would cost a warm run a third of its
    /// time every ten minutes); the journal's use (`journals.last_used`) is their last use,
    /// which `cache prune` reads (`JournalUse`).
    static let markAfter = 600.0
    private let index: IndexDatabase

    /// The journal for `outputDirectory` in `cache`; nil when the folder cannot be resolved.
    /// A cache opened to look only reads the journal and writes nothing.
    init?(cache: ThumbnailCache, outputDirectory: URL) {
        guard let real = realpath(outputDirectory.path, nil) else { return nil }
        let outPath = String(cString: real)
        free(real)
        guard let out = FileStamp.of(outPath) else { return nil }
        let folder = open(outPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        outputFolder = folder
        self.outPath = outPath
        layout = cache.layout
        files = cache.files
        records = cache.outputs.changes.generation
        index = cache.index
        identity = JournalIdentity(outPath: outPath, outDevice: out.device, outInode: out.inode)
        writes = !layout.looksOnly
        // The generations first: a change made while the journal is read is then not vouched for.
        let seen = JournalGenerations(files: files.generation.track() ?? 0, outputs: records.track() ?? 0)
        self.seen = seen
        let loaded = JournalIndex.load(outPath: outPath, from: cache.index)
        let trusted = loaded?.identity == identity ? loaded : nil
        previous = trusted
        filesStable = seen.files != 0 && trusted?.generations.files == seen.files
        recordsStable = seen.outputs != 0 && trusted?.generations.outputs == seen.outputs
    }

    deinit { close(outputFolder) }

    /// A local source the previous journal knows, unchanged.
    struct Source: Sendable {
        let ordinal: Int
        let digest: String
    }

    /// The source at `path`, whose stamp is `stamp` now, if the journal knows it under that
    /// stamp and its `files` row is still the one that gave its digest.
    func source(path: String, stamp: FileStamp) -> Source? {
        guard let previous, let ordinal = previous.sources.ordinal(of: path),
              previous.sources.stamp(ordinal) == stamp else { return nil }
        if !filesStable {
            let written = previous.sources.written(ordinal)
            guard written != 0, files.written(path) == written else { return nil }
        }
        return Source(ordinal: ordinal, digest: previous.sources.digestHex(ordinal))
    }

    /// The facts of `source` as the next journal keeps them.
    func facts(of source: Source) -> JournalSource? {
        previous?.sources[source.ordinal]
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
    /// With `placeholder`, the record carries the entry's placeholder; with `unlessOwing`, an
    /// entry whose record owes its source's placeholder is not vouched for (the slow path
    /// plans the render that makes it).
    func output(of request: ThumbnailRequest, source: Source, sourcePath: String, key outputKey: OutputKey,
                placeholder: Bool = false, unlessOwing: Bool = false) -> Vouched? {
        let keyBytes = outputKey.digestBytes
        guard let previous, keyBytes.count == 32 else { return nil }
        let row = JournalFormat.keyedRow(template: request.outTemplate, row: request.row)
        let hash = JournalFormat.entryHash(sourcePath: sourcePath, key: keyBytes, template: request.outTemplate, row: row)
        let templateCheck = JournalFormat.templateCheck(request.outTemplate)
        let found: (Int, OutputRecord, String, FileStamp, FileStamp)? = previous.bytes.withUnsafeBytes { raw in
            let reader = JournalReader(bytes: raw)
            return previous.probeEntries(hash: hash) { offset in
                guard reader.u64(offset) == hash,
                      Int(reader.u32(offset + JournalEntry.sourceAt)) == source.ordinal,
                      reader.equals(offset + JournalEntry.keyAt, 32, keyBytes),
                      JournalEntry.row(reader, at: offset) == row,
                      JournalEntry.isFor(templateCheck: templateCheck, reader, at: offset),
                      var record = JournalEntry.record(reader, at: offset),
                      !(unlessOwing && record.owesPlaceholder) else { return nil }
                if placeholder { record.placeholder = JournalEntry.placeholder(reader, at: offset) }
                return (offset, record, JournalEntry.path(reader, at: offset),
                        reader.recordStamp(offset + JournalEntry.recordStampAt), reader.stamp(offset + JournalEntry.outStampAt))
            }
        }
        guard let (offset, record, path, recordStamp, outStamp) = found else { return nil }
        if !recordsStable {
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
        notes.withLock { $0.add(entry, source: source, previous: previous) }
    }

    /// What this run has noted so far: rows the previous journal vouched for (`kept`), and
    /// rows the slow path proved up to date (`fresh`).
    var counts: (kept: Int, fresh: Int) { notes.withLock { $0.counts } }

    /// Saves the next journal in place of this one, in one transaction, unless it would say
    /// the same, or the run went over only some of its rows and proved none the slow way; a
    /// run that noted nothing and had no journal to keep removes any.
    func save() {
        guard writes else { return }
        // The run's own changes (made before this) do not cost the next run its trust.
        let generations = JournalGenerations(
            files: seen.files != 0 ? files.generation.sinceTracked() ?? seen.files : 0,
            outputs: seen.outputs != 0 ? records.sinceTracked() ?? seen.outputs : 0)
        let saved: Bool = notes.withLock { notes in
            // A steady warm run found the journal true throughout: it stays as it is, marked
            // used (its use stands for its records') if due.
            if let previous, notes.repeats(previous, generations: generations) {
                if Date().timeIntervalSince1970 - previous.lastUsed > Self.markAfter {
                    index.execute("UPDATE journals SET last_used = ? WHERE id = ?",
                                  [.real(Date().timeIntervalSince1970), .integer(previous.id)])
                }
                return true
            }
            // A run over some of the rows (one row of the manifest, a subset, new rows only
            // rendered) that proved none the slow way learnt nothing the journal does not say:
            // it stays whole, with its generations, so that the next run over all the rows is
            // warm too (checking each entry's record if anything moved since). Not marked used:
            // its use stands for every record it names (`JournalUse`), and this run used few.
            if let previous, notes.isPart(of: previous) { return true }
            guard !notes.isEmpty else { return false }
            return write(notes, generations: generations)
        }
        if !saved {
            index.transaction { transaction in
                Self.remove(outPath: outPath, in: &transaction)
            }
        }
    }

    /// Writes `notes` as this folder's journal, replacing any; false when it could not.
    private func write(_ notes: JournalNotes, generations: JournalGenerations) -> Bool {
        index.transaction { transaction in
            Self.remove(outPath: outPath, in: &transaction)
            transaction.execute("""
                INSERT INTO journals (out_path, out_device, out_inode, files_generation, outputs_generation, last_used)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [.text(outPath), .integer(Int64(bitPattern: identity.outDevice)),
                      .integer(Int64(bitPattern: identity.outInode)), .integer(generations.files),
                      .integer(generations.outputs), .real(Date().timeIntervalSince1970)])
            var id: Int64 = 0
            transaction.query("SELECT id FROM journals WHERE out_path = ?", [.text(outPath)]) { id = $0.integer(0) }
            notes.rows(previous: previous, source: { ordinal, source in
                transaction.execute("""
                    INSERT INTO journal_sources (journal, ordinal, path, device, inode, size, mtime, ctime, digest, written)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(id), .integer(Int64(ordinal)), .text(source.path),
                          .integer(Int64(bitPattern: source.stamp.device)), .integer(Int64(bitPattern: source.stamp.inode)),
                          .integer(source.stamp.size), .integer(source.stamp.modified), .integer(source.stamp.changed),
                          .blob(source.digest), .integer(source.written)])
            }, entry: { entry in
                let reader = JournalReader(bytes: entry)
                // A hash two entries share keeps the later: the other row takes the slow path.
                transaction.execute("INSERT OR REPLACE INTO journal_entries (journal, hash, key, proof) VALUES (?, ?, ?, ?)",
                                    [.integer(id), .integer(reader.i64(0)),
                                     .blob(Array(entry[JournalEntry.keyAt..<JournalEntry.proofAt])),
                                     .blob(Array(entry[JournalEntry.proofAt...]))])
            })
        }
    }

    /// Removes the journal of the `--out` folder at `outPath`, rows and all.
    private static func remove(outPath: String, in transaction: inout IndexDatabase.Transaction) {
        let journal = "(SELECT id FROM journals WHERE out_path = ?)"
        transaction.execute("DELETE FROM journal_entries WHERE journal = \(journal)", [.text(outPath)])
        transaction.execute("DELETE FROM journal_sources WHERE journal = \(journal)", [.text(outPath)])
        transaction.execute("DELETE FROM journals WHERE out_path = ?", [.text(outPath)])
    }

    /// When the journal of the `--out` folder at `outPath` was last used; nil when there is none.
    static func lastUse(ofJournalFor outPath: String, in index: IndexDatabase) -> Double? {
        var used: Double?
        index.query("SELECT last_used FROM journals WHERE out_path = ?", [.text(outPath)]) { used = $0.real(0) }
        return used
    }
}
