import Crypto
import Foundation

/// What a run learns for the next journal, row by row: the previous journal's entries it found
/// still true (kept by their offset, copied only when the file is written), and the outputs
/// the planner proved up to date the slow way (encoded at once). Sources are shared by their
/// entries, one per path; entries name them by token (their ordinal in the file written).
struct JournalNotes {
    private(set) var sources: [JournalSource] = []
    private var tokens: [String: Int] = [:]
    /// Token of each previous source already copied, by its ordinal.
    private var previousTokens: [Int: Int] = [:]
    /// Previous sources' records marked used in this run, by ordinal: their new stamps.
    private var touchedSources: [Int: FileStamp] = [:]
    /// Previous entries kept: offset, token of their source.
    private var kept: [(offset: Int32, token: UInt32)] = []
    /// Kept entries whose record was marked used in this run: its new stamp, by offset.
    private var touchedRecords: [Int32: FileStamp] = [:]
    /// One bit per 8 bytes of the previous journal: entries already kept (rows repeated).
    private var keptBits: [UInt64] = []
    private var fresh = JournalWriter()
    private var freshCount = 0

    /// The new stamp of previous source `ordinal`'s record, if this run marked it used.
    func touched(source ordinal: Int) -> FileStamp? { touchedSources[ordinal] }

    /// Notes that previous source `ordinal`'s record was marked used and now has `stamp`.
    mutating func touch(source ordinal: Int, stamp: FileStamp) {
        touchedSources[ordinal] = stamp
    }

    /// Keeps the previous entry at `offset`, whose source is previous source `ordinal`;
    /// `record` is its record's new stamp if this run marked it used.
    mutating func keep(entry offset: Int, source ordinal: Int, record: FileStamp?, from index: JournalIndex) {
        let bit = offset >> 3
        if keptBits.isEmpty { keptBits = [UInt64](repeating: 0, count: index.bytes.count / 512 + 1) }
        guard keptBits[bit >> 6] & (1 << UInt64(bit & 63)) == 0 else { return }
        keptBits[bit >> 6] |= 1 << UInt64(bit & 63)
        let token: Int
        if let known = previousTokens[ordinal] {
            token = known
        } else {
            guard let (source, _) = index.bytes.withUnsafeBytes({ raw in
                JournalSource.decode(JournalReader(bytes: raw), at: index.sourceOffsets[ordinal], end: raw.count)
            }) else { return }
            token = self.token(for: source)
            previousTokens[ordinal] = token
        }
        kept.append((Int32(offset), UInt32(token)))
        if let record { touchedRecords[Int32(offset)] = record }
    }

    /// Adds an entry proved the slow way, over `source`.
    mutating func add(_ entry: JournalEntry, source: JournalSource) {
        var entry = entry
        entry.source = UInt32(token(for: source))
        entry.encode(into: &fresh)
        freshCount += 1
    }

    /// The token of `source`'s path; a later note of the same path with other facts replaces
    /// the earlier (entries noted under those stay safe: their output key holds the digest).
    private mutating func token(for source: JournalSource) -> Int {
        if let token = tokens[source.path] {
            if sources[token] != source { sources[token] = source }
            return token
        }
        tokens[source.path] = sources.count
        sources.append(source)
        return sources.count - 1
    }

    /// Whether anything was noted.
    var isEmpty: Bool { kept.isEmpty && freshCount == 0 }

    /// Entries of the previous journal found still true, and entries proved the slow way.
    var counts: (kept: Int, fresh: Int) { (kept.count, freshCount) }

    /// Writes the journal to `write`, chunk by chunk (the checksum last); false when a chunk
    /// could not be written or the journal would be too large.
    func write(identity: JournalIdentity, folders: CacheFolderStamps, previous: JournalIndex?,
               to write: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var head = JournalWriter()
        let outPath = Array(identity.outPath.utf8), cacheRoot = Array(identity.cacheRoot.utf8)
        head.raw(JournalFormat.magic)
        head.u32(JournalFormat.version)
        head.u32(UInt32(sources.count)); head.u32(UInt32(kept.count + freshCount))
        head.u32(UInt32(outPath.count)); head.u32(UInt32(cacheRoot.count)); head.u32(0)
        head.u64(identity.outDevice); head.u64(identity.outInode)
        head.u64(identity.cacheDevice); head.u64(identity.cacheInode)
        head.raw(outPath); head.raw(cacheRoot); head.pad()
        let none = FileStamp(device: 0, inode: 0, size: 0, modified: 0, changed: 0)
        for stamp in folders.stamps { head.stamp(stamp ?? none) }
        var touchedByToken: [Int: FileStamp] = [:]
        for (ordinal, token) in previousTokens { touchedByToken[token] = touchedSources[ordinal] }
        for (token, var source) in sources.enumerated() {
            if let touched = touchedByToken[token] { source.record = touched }
            source.encode(into: &head)
        }
        var hasher = SHA256()
        var total = 0
        func emit(_ bytes: UnsafeRawBufferPointer) -> Bool {
            total += bytes.count
            guard total <= JournalFormat.maxBytes else { return false }
            hasher.update(bufferPointer: bytes)
            return write(bytes)
        }
        guard head.bytes.withUnsafeBytes(emit) else { return false }
        if let previous, !kept.isEmpty {
            let copied = previous.bytes.withUnsafeBytes { raw -> Bool in
                let reader = JournalReader(bytes: raw)
                var chunk = JournalWriter()
                for (offset, token) in kept {
                    let start = Int(offset)
                    guard let end = JournalEntry.end(reader, at: start, end: raw.count) else { return false }
                    let base = chunk.bytes.count
                    chunk.raw(raw[start..<end])
                    withUnsafeBytes(of: token.littleEndian) { tokenBytes in
                        for i in 0..<4 { chunk.bytes[base + JournalEntry.sourceAt + i] = tokenBytes[i] }
                    }
                    if let touched = touchedRecords[offset] {
                        var stamp = JournalWriter()
                        stamp.stamp(touched)
                        chunk.bytes.replaceSubrange((base + JournalEntry.recordStampAt)..<(base + JournalEntry.recordStampAt + 40),
                                                    with: stamp.bytes)
                    }
                    if chunk.bytes.count >= 1 << 16 {
                        guard chunk.bytes.withUnsafeBytes(emit) else { return false }
                        chunk.bytes.removeAll(keepingCapacity: true)
                    }
                }
                return chunk.bytes.withUnsafeBytes(emit)
            }
            guard copied else { return false }
        }
        guard fresh.bytes.withUnsafeBytes(emit) else { return false }
        let check = Array(hasher.finalize())
        return check.withUnsafeBytes(write)
    }
}
