import Foundation

/// Where the journal's file says a run's --out folder and cache are: a journal is trusted only
/// by the run whose folders these are.
struct JournalIdentity: Equatable, Sendable {
    /// `--out`'s real path, and its device and inode.
    var outPath: String
    var outDevice: UInt64, outInode: UInt64
    /// The cache directory as given, and the device and inode of its `v1` folder.
    var cacheRoot: String
    var cacheDevice: UInt64, cacheInode: UInt64
}

/// A journal file read back, checked whole, and indexed for lookups in place: open-addressing
/// tables of offsets into its bytes, keyed by the FNV hashes the file stores (sources by path,
/// entries by `JournalFormat.entryHash`). Immutable, so that the planner's threads read it
/// without a lock.
struct JournalIndex: Sendable {
    let bytes: [UInt8]
    let identity: JournalIdentity
    let folders: CacheFolderStamps
    /// Byte offset of each source, by ordinal.
    let sourceOffsets: [Int]
    /// Where each `out` template's text is (offset, length), by index.
    let templates: [(offset: Int, length: Int)]
    /// Source ordinal + 1 per slot (0: empty), and entry offset per slot (0: empty).
    private let sourceSlots: [Int32], entrySlots: [Int32]
    let entryCount: Int

    /// The journal in `bytes`; nil unless they are a whole, undamaged journal of this version.
    init?(bytes: [UInt8]) {
        guard bytes.count >= JournalFormat.headerSize + JournalFormat.checkSize,
              bytes.count <= JournalFormat.maxBytes else { return nil }
        let end = bytes.count - JournalFormat.checkSize
        let parsed: Parsed? = bytes.withUnsafeBytes { raw in
            guard JournalFormat.check(UnsafeRawBufferPointer(rebasing: raw[..<end])).elementsEqual(raw[end...])
            else { return nil }
            return Self.parse(JournalReader(bytes: raw), end: end)
        }
        guard let parsed, parsed.end == end else { return nil }
        let (sources, entries) = (parsed.sources, parsed.entries)
        self.bytes = bytes
        identity = parsed.identity
        folders = parsed.folders
        sourceOffsets = sources
        templates = parsed.templates
        entryCount = entries.count
        var sourceSlots = [Int32](repeating: 0, count: Self.capacity(for: sources.count))
        var entrySlots = [Int32](repeating: 0, count: Self.capacity(for: entries.count))
        bytes.withUnsafeBytes { raw in
            let reader = JournalReader(bytes: raw)
            for (ordinal, offset) in sources.enumerated() {
                var hash = JournalFormat.Hash()
                hash.add(raw[(offset + JournalFormat.sourceSize)..<(offset + JournalFormat.sourceSize + Int(reader.u32(offset)))])
                Self.insert(Int32(ordinal + 1), hash: hash.value, into: &sourceSlots)
            }
            for offset in entries {
                Self.insert(Int32(offset), hash: reader.u64(offset), into: &entrySlots)
            }
        }
        self.sourceSlots = sourceSlots
        self.entrySlots = entrySlots
    }

    /// The ordinals of the sources whose path hashes to `hash`, in probe order, until `body`
    /// returns a value.
    func probeSources<T>(hash: UInt64, _ body: (Int) -> T?) -> T? {
        Self.probe(sourceSlots, hash: hash) { body(Int($0) - 1) }
    }

    /// The offsets of the entries whose hash is `hash` (and some others), in probe order,
    /// until `body` returns a value.
    func probeEntries<T>(hash: UInt64, _ body: (Int) -> T?) -> T? {
        Self.probe(entrySlots, hash: hash) { body(Int($0)) }
    }

    /// Calls `body` with every cache record the journal names: its sources' `files` rows (by
    /// path) and its entries' output records (by key).
    func forEachRecord(_ body: (CacheLayout.Kind, String) -> Void) {
        bytes.withUnsafeBytes { raw in
            let reader = JournalReader(bytes: raw)
            for offset in sourceOffsets {
                body(.files, reader.string(offset + JournalFormat.sourceSize, Int(reader.u32(offset))))
            }
            for offset in entrySlots where offset != 0 { body(.outputs, reader.hex(Int(offset) + JournalEntry.keyAt)) }
        }
    }

    private static func capacity(for count: Int) -> Int {
        var capacity = 16
        while capacity < count * 2 { capacity <<= 1 }
        return capacity
    }

    private static func insert(_ value: Int32, hash: UInt64, into slots: inout [Int32]) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = value
    }

    private static func probe<T>(_ slots: [Int32], hash: UInt64, _ body: (Int32) -> T?) -> T? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            if let found = body(slots[slot]) { return found }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private struct Parsed {
        var identity: JournalIdentity
        var folders: CacheFolderStamps
        var sources: [Int]
        var templates: [(offset: Int, length: Int)]
        var entries: [Int]
        var end: Int
    }

    /// The header, folders, and where the sources, templates and entries are; nil when
    /// anything runs past `end` or is not this version's.
    private static func parse(_ reader: JournalReader, end: Int) -> Parsed? {
        guard reader.equals(0, 16, JournalFormat.magic), reader.u32(16) == JournalFormat.version else { return nil }
        let sourceCount = Int(reader.u32(20)), entryCount = Int(reader.u32(24))
        let outLength = Int(reader.u32(28)), cacheLength = Int(reader.u32(32)), templateCount = Int(reader.u32(36))
        var offset = JournalFormat.headerSize
        guard offset + outLength + cacheLength <= end else { return nil }
        let identity = JournalIdentity(
            outPath: reader.string(offset, outLength), outDevice: reader.u64(40), outInode: reader.u64(48),
            cacheRoot: reader.string(offset + outLength, cacheLength), cacheDevice: reader.u64(56),
            cacheInode: reader.u64(64))
        offset = (offset + outLength + cacheLength + 7) & ~7
        guard offset + 8 + CacheFolderStamps.count * 40 <= end else { return nil }
        let filesGeneration = reader.i64(offset)
        offset += 8
        var stamps = [FileStamp?]()
        for index in 0..<CacheFolderStamps.count {
            let stamp = reader.stamp(offset + index * 40)
            stamps.append(stamp.inode == 0 && stamp.changed == 0 ? nil : stamp)
        }
        offset += CacheFolderStamps.count * 40
        // Counts are checked against what is left, so that a damaged count cannot make
        // this reserve memory without end.
        guard sourceCount <= (end - offset) / JournalFormat.sourceSize,
              entryCount <= (end - offset) / JournalFormat.entrySize,
              templateCount <= (end - offset) / 8 else { return nil }
        var sources: [Int] = []
        sources.reserveCapacity(sourceCount)
        for _ in 0..<sourceCount {
            guard offset + JournalFormat.sourceSize <= end else { return nil }
            let next = (offset + JournalFormat.sourceSize + Int(reader.u32(offset)) + 7) & ~7
            guard next <= end else { return nil }
            sources.append(offset)
            offset = next
        }
        var templates: [(offset: Int, length: Int)] = []
        for _ in 0..<templateCount {
            guard offset + 4 <= end else { return nil }
            let length = Int(reader.u32(offset))
            let next = (offset + 4 + length + 7) & ~7
            guard next <= end else { return nil }
            templates.append((offset + 4, length))
            offset = next
        }
        var entries: [Int] = []
        entries.reserveCapacity(entryCount)
        for _ in 0..<entryCount {
            guard let next = JournalEntry.end(reader, at: offset, end: end),
                  Int(reader.u32(offset + JournalEntry.sourceAt)) < sourceCount,
                  JournalEntry.template(reader, at: offset) < templateCount else { return nil }
            entries.append(offset)
            offset = next
        }
        return Parsed(identity: identity, folders: CacheFolderStamps(stamps: stamps, filesGeneration: filesGeneration),
                      sources: sources,
                      templates: templates, entries: entries, end: offset)
    }
}
