import Foundation

/// Which `--out` folder a journal is of: its real path, device and inode. A journal is trusted
/// only by a run whose folder this is (not by another folder made later at the same path).
struct JournalIdentity: Equatable, Sendable {
    var outPath: String
    var outDevice: UInt64, outInode: UInt64
}

/// The generations (`Generation`) a journal was saved against: while the database's are the
/// same, every `files` row and output record it names is the one it read. 0: unknown, which
/// vouches for nothing.
struct JournalGenerations: Equatable, Sendable {
    var files: Int64
    var outputs: Int64
}

/// A journal read from the database, indexed for lookups: its sources by path, and its entries
/// in one buffer (`JournalEntry`'s layout) behind an open-addressing table of offsets keyed by
/// their hashes. Immutable, so that the planner's threads read it without a lock.
struct JournalIndex: Sendable {
    /// Its row in `journals`.
    let id: Int64
    let identity: JournalIdentity
    let generations: JournalGenerations
    /// When it was last used (`journals.last_used`).
    let lastUsed: Double
    /// Its sources, by ordinal.
    let sources: JournalSources
    /// Its entries, one after another.
    let bytes: [UInt8]
    /// Entry offset + 1 per slot (0: empty).
    private let slots: [Int32]
    let entryCount: Int

    /// The journal of the `--out` folder at `outPath` in `index`; nil when there is none, or
    /// its sources are not whole. An entry that is not whole, or names a source the journal
    /// lacks, is left out.
    static func load(outPath: String, from index: IndexDatabase) -> JournalIndex? {
        var header: (id: Int64, identity: JournalIdentity, generations: JournalGenerations, lastUsed: Double)?
        index.query("""
            SELECT id, out_device, out_inode, files_generation, outputs_generation, last_used
            FROM journals WHERE out_path = ?
            """, [.text(outPath)]) { row in
            header = (row.integer(0),
                      JournalIdentity(outPath: outPath, outDevice: UInt64(bitPattern: row.integer(1)),
                                      outInode: UInt64(bitPattern: row.integer(2))),
                      JournalGenerations(files: row.integer(3), outputs: row.integer(4)), row.real(5))
        }
        guard let header else { return nil }
        var sources = JournalSources()
        var whole = true
        let read = index.query("""
            SELECT ordinal, path, device, inode, size, mtime, ctime, digest, written
            FROM journal_sources WHERE journal = ? ORDER BY ordinal
            """, [.integer(header.id)]) { row in
            guard whole, row.integer(0) == sources.count, let path = row.text(1) else {
                whole = false
                return
            }
            let stamp = FileStamp(device: UInt64(bitPattern: row.integer(2)), inode: UInt64(bitPattern: row.integer(3)),
                                  size: row.integer(4), modified: row.integer(5), changed: row.integer(6))
            let taken = row.withBytes(7) { sources.append(path: path, stamp: stamp, digest: $0, written: row.integer(8)) }
            if !taken { whole = false }
        }
        guard read, whole else { return nil }
        var entries = Entries(sourceCount: sources.count)
        let readEntries = index.query("SELECT hash, key, proof FROM journal_entries WHERE journal = ?",
                               [.integer(header.id)]) { row in
            let hash = row.integer(0)
            row.withBytes(1) { key in row.withBytes(2) { proof in _ = entries.add(hash: hash, key: key, proof: proof) } }
        }
        guard readEntries else { return nil }
        return JournalIndex(id: header.id, identity: header.identity, generations: header.generations,
                            lastUsed: header.lastUsed, sources: sources, bytes: entries.bytes, offsets: entries.offsets)
    }

    /// Entries as they are read, one after another in `JournalEntry`'s layout.
    struct Entries {
        /// How many sources the journal has: an entry naming another is left out.
        let sourceCount: Int
        private(set) var bytes: [UInt8] = []
        private(set) var offsets: [Int32] = []

        init(sourceCount: Int) { self.sourceCount = sourceCount }

        /// Adds the entry of these columns; false (and left out) when they are not whole.
        mutating func add(hash: Int64, key: UnsafeRawBufferPointer, proof: UnsafeRawBufferPointer) -> Bool {
            guard key.count == 32, JournalEntry.isWhole(proof: proof),
                  Int(JournalReader(bytes: proof).u32(0)) < sourceCount,
                  bytes.count + JournalEntry.proofAt + proof.count < Int(Int32.max) else { return false }
            offsets.append(Int32(bytes.count))
            withUnsafeBytes(of: UInt64(bitPattern: hash).littleEndian) { bytes += $0 }
            bytes += key
            bytes += proof
            return true
        }
    }

    /// A journal of these parts; `offsets` are where its entries start in `bytes`.
    init(id: Int64, identity: JournalIdentity, generations: JournalGenerations, lastUsed: Double,
         sources: JournalSources, bytes: [UInt8], offsets: [Int32]) {
        self.id = id
        self.identity = identity
        self.generations = generations
        self.lastUsed = lastUsed
        var sources = sources
        sources.index()
        self.sources = sources
        self.bytes = bytes
        entryCount = offsets.count
        var capacity = 16
        while capacity < offsets.count * 2 { capacity <<= 1 }
        var slots = [Int32](repeating: 0, count: capacity)
        bytes.withUnsafeBytes { raw in
            let reader = JournalReader(bytes: raw)
            let mask = capacity - 1
            for offset in offsets {
                var slot = Int(truncatingIfNeeded: reader.u64(Int(offset))) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = offset + 1
            }
        }
        self.slots = slots
    }

    /// The offsets of the entries whose hash is `hash` (and some others), in probe order,
    /// until `body` returns a value.
    func probeEntries<T>(hash: UInt64, _ body: (Int) -> T?) -> T? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            if let found = body(Int(slots[slot]) - 1) { return found }
            slot = (slot + 1) & mask
        }
        return nil
    }
}

/// A journal's sources, by ordinal, in flat arrays (a 20,000-source journal would otherwise be
/// 40,000 small allocations held through the run), found by path through an open-addressing
/// table of their paths' FNV hashes.
struct JournalSources: Sendable {
    /// The paths' UTF-8, one after another; where each ends.
    private var pathBytes: [UInt8] = []
    private var pathEnds: [Int32] = []
    private var stamps: [FileStamp] = []
    private var writtenBy: [Int64] = []
    /// 32 bytes per source.
    private var digests: [UInt8] = []
    /// Ordinal + 1 per slot (0: empty), made by `index()`.
    private var slots: [Int32] = []

    var count: Int { pathEnds.count }

    /// Adds a source; false when its digest is not 32 bytes.
    mutating func append(path: String, stamp: FileStamp, digest: UnsafeRawBufferPointer, written: Int64) -> Bool {
        guard digest.count == 32, pathBytes.count + path.utf8.count < Int(Int32.max) else { return false }
        pathBytes += path.utf8
        pathEnds.append(Int32(pathBytes.count))
        stamps.append(stamp)
        writtenBy.append(written)
        digests += digest
        return true
    }

    /// Makes the table `ordinal(of:)` looks paths up in.
    mutating func index() {
        var capacity = 16
        while capacity < count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: 0, count: capacity)
        for ordinal in 0..<count {
            var slot = Self.slot(pathBytes[pathRange(ordinal)], capacity)
            while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(ordinal + 1)
        }
    }

    private static func slot<Bytes: Sequence>(_ path: Bytes, _ capacity: Int) -> Int where Bytes.Element == UInt8 {
        var hash = JournalFormat.Hash()
        hash.add(path)
        return Int(truncatingIfNeeded: hash.value) & (capacity - 1)
    }

    /// The ordinal of the source at `path`; nil when there is none.
    func ordinal(of path: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        var slot = Self.slot(path.utf8, slots.count)
        while slots[slot] != 0 {
            let ordinal = Int(slots[slot]) - 1
            if pathBytes[pathRange(ordinal)].elementsEqual(path.utf8) { return ordinal }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    private func pathRange(_ ordinal: Int) -> Range<Int> {
        (ordinal == 0 ? 0 : Int(pathEnds[ordinal - 1]))..<Int(pathEnds[ordinal])
    }

    func path(_ ordinal: Int) -> String { String(decoding: pathBytes[pathRange(ordinal)], as: UTF8.self) }
    func stamp(_ ordinal: Int) -> FileStamp { stamps[ordinal] }
    /// The `files` generation that wrote the source's row.
    func written(_ ordinal: Int) -> Int64 { writtenBy[ordinal] }
    func digestHex(_ ordinal: Int) -> String { ContentDigest.hex(digests[(ordinal * 32)..<(ordinal * 32 + 32)]) }

    /// The source as the next journal keeps it.
    subscript(ordinal: Int) -> JournalSource {
        JournalSource(path: path(ordinal), stamp: stamps[ordinal],
                      digest: Array(digests[(ordinal * 32)..<(ordinal * 32 + 32)]), written: writtenBy[ordinal])
    }
}
