import Crypto
import Foundation

/// What a run learns for the next journal, row by row: the previous journal's entries it found
/// still true (kept by their offset, copied only when the file is written), and the outputs
/// the planner proved up to date the slow way (encoded at once). Sources are shared by their
/// entries, one per path; entries name them by token (their ordinal in the file written).
struct JournalNotes {
    /// A source of the next journal: one of the previous journal's (copied as it is), or one
    /// the slow path proved.
    private enum Source {
        case previous(ordinal: Int)
        case fresh(JournalSource)
    }

    private var sources: [Source] = []
    private var tokens: [String: Int] = [:]
    /// Token of each previous source already taken, by its ordinal.
    private var previousTokens: [Int: Int] = [:]
    /// Previous entries kept: offset, and the token of their source.
    private var kept: [(offset: Int32, token: UInt32)] = []
    /// The `out` templates entries name, by index, and their indexes; the index each
    /// previous template has now, by its index then.
    private var templates: [String] = []
    private var templateIndexes: [String: Int] = [:]
    private var previousTemplates: [Int: Int] = [:]
    /// One bit per 8 bytes of the previous journal: entries already kept (rows repeated).
    private var keptBits: [UInt64] = []
    /// Entries proved the slow way, encoded, in chunks: a first warm run notes every row, and
    /// one growing array would double (and copy) its way to the journal's size.
    private var fresh: [[UInt8]] = []
    private var freshCount = 0
    private static let chunkSize = 1 << 18

    /// Keeps the previous entry at `offset`, whose source is previous source `ordinal`.
    mutating func keep(entry offset: Int, source ordinal: Int, from index: JournalIndex) {
        let bit = offset >> 3
        if keptBits.isEmpty {
            keptBits = [UInt64](repeating: 0, count: index.bytes.count / 512 + 1)
            // Sized once: grown by doubling, they would briefly hold both copies.
            kept.reserveCapacity(index.entryCount)
        }
        guard keptBits[bit >> 6] & (1 << UInt64(bit & 63)) == 0 else { return }
        keptBits[bit >> 6] |= 1 << UInt64(bit & 63)
        let token: Int
        if let known = previousTokens[ordinal] {
            token = known
        } else {
            let path = index.bytes.withUnsafeBytes { raw in
                let reader = JournalReader(bytes: raw)
                let start = index.sourceOffsets[ordinal]
                return reader.string(start + JournalFormat.sourceSize, Int(reader.u32(start)))
            }
            if let noted = tokens[path] {
                token = noted
            } else {
                token = sources.count
                tokens[path] = token
                sources.append(.previous(ordinal: ordinal))
            }
            previousTokens[ordinal] = token
        }
        let old = index.bytes.withUnsafeBytes { JournalEntry.template(JournalReader(bytes: $0), at: offset) }
        if previousTemplates[old] == nil {
            let range = index.templates[old]
            let text = index.bytes.withUnsafeBytes { JournalReader(bytes: $0).string(range.offset, range.length) }
            guard let new = templateIndex(text) else { return }
            previousTemplates[old] = new
        }
        kept.append((Int32(offset), UInt32(token)))
    }

    /// The index of `template` in the next journal; nil when there are too many to name.
    private mutating func templateIndex(_ template: String) -> Int? {
        if let index = templateIndexes[template] { return index }
        guard templates.count <= Int(UInt16.max) else { return nil }
        templateIndexes[template] = templates.count
        templates.append(template)
        return templates.count - 1
    }

    /// Adds an entry proved the slow way, over `source`.
    mutating func add(_ entry: JournalEntry, source: JournalSource) {
        guard entry.fits, let template = templateIndex(entry.template) else { return }
        var entry = entry
        entry.source = UInt32(token(for: source))
        var writer = JournalWriter()
        entry.encode(into: &writer, templateIndex: template)
        if fresh.isEmpty || fresh[fresh.count - 1].count + writer.bytes.count > Self.chunkSize {
            fresh.append([])
            fresh[fresh.count - 1].reserveCapacity(Self.chunkSize)
        }
        fresh[fresh.count - 1] += writer.bytes
        freshCount += 1
    }

    /// The token of `source`'s path; a later note of the same path with other facts replaces
    /// the earlier (entries noted under those stay safe: their output key holds the digest).
    private mutating func token(for source: JournalSource) -> Int {
        if let token = tokens[source.path] {
            if case .fresh(let noted) = sources[token], noted == source { return token }
            sources[token] = .fresh(source)
            return token
        }
        tokens[source.path] = sources.count
        sources.append(.fresh(source))
        return sources.count - 1
    }

    /// Whether anything was noted.
    var isEmpty: Bool { kept.isEmpty && freshCount == 0 }

    /// Whether the journal these notes would write says just what `previous` says: every one
    /// of its entries kept, and its sources, in the same state (then it need not be written).
    func repeats(_ previous: JournalIndex?, folders: CacheFolderStamps) -> Bool {
        guard let previous else { return false }
        return freshCount == 0
            && kept.count == previous.entryCount && sources.count == previous.sourceOffsets.count
            && templates.count == previous.templates.count && folders == previous.folders
    }

    /// Entries of the previous journal found still true, and entries proved the slow way.
    var counts: (kept: Int, fresh: Int) { (kept.count, freshCount) }

    /// Writes the journal to `write`, chunk by chunk (the checksum last); false when a chunk
    /// could not be written or the journal would be too large.
    func write(identity: JournalIdentity, folders: CacheFolderStamps, previous: JournalIndex?,
               to write: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var hasher = SHA256()
        var total = 0
        var chunk = JournalWriter()
        // Hands `chunk` on once it is large (or `force`d), through the checksum.
        func emit(force: Bool = false) -> Bool {
            guard force || chunk.bytes.count >= 1 << 16 else { return true }
            total += chunk.bytes.count
            guard total <= JournalFormat.maxBytes else { return false }
            let ok = chunk.bytes.withUnsafeBytes { bytes in
                hasher.update(bufferPointer: bytes)
                return write(bytes)
            }
            chunk.bytes.removeAll(keepingCapacity: true)
            return ok
        }
        let outPath = Array(identity.outPath.utf8), cacheRoot = Array(identity.cacheRoot.utf8)
        chunk.raw(JournalFormat.magic)
        chunk.u32(JournalFormat.version)
        chunk.u32(UInt32(sources.count)); chunk.u32(UInt32(kept.count + freshCount))
        chunk.u32(UInt32(outPath.count)); chunk.u32(UInt32(cacheRoot.count)); chunk.u32(UInt32(templates.count))
        chunk.u64(identity.outDevice); chunk.u64(identity.outInode)
        chunk.u64(identity.cacheDevice); chunk.u64(identity.cacheInode)
        chunk.raw(outPath); chunk.raw(cacheRoot); chunk.pad()
        chunk.i64(folders.filesGeneration)
        let none = FileStamp(device: 0, inode: 0, size: 0, modified: 0, changed: 0)
        for stamp in folders.stamps { chunk.stamp(stamp ?? none) }
        let copied = (previous?.bytes ?? []).withUnsafeBytes { raw -> Bool in
            let reader = JournalReader(bytes: raw)
            for source in sources {
                switch source {
                case .fresh(let fresh):
                    fresh.encode(into: &chunk)
                case .previous(let ordinal):
                    guard let previous, let (old, _) = JournalSource.decode(
                        reader, at: previous.sourceOffsets[ordinal], end: raw.count) else { return false }
                    old.encode(into: &chunk)
                }
                guard emit() else { return false }
            }
            for template in templates {
                let text = Array(template.utf8)
                chunk.u32(UInt32(text.count))
                chunk.raw(text)
                chunk.pad()
            }
            for (offset, token) in kept {
                let start = Int(offset)
                guard let end = JournalEntry.end(reader, at: start, end: raw.count) else { return false }
                let base = chunk.bytes.count
                chunk.raw(raw[start..<end])
                var patch = JournalWriter()
                patch.u32(token)
                chunk.bytes.replaceSubrange((base + JournalEntry.sourceAt)..<(base + JournalEntry.sourceAt + 4), with: patch.bytes)
                let template = previousTemplates[JournalEntry.template(reader, at: start)] ?? 0
                chunk.bytes[base + JournalEntry.templateAt] = UInt8(template & 0xff)
                chunk.bytes[base + JournalEntry.templateAt + 1] = UInt8(template >> 8)
                guard emit() else { return false }
            }
            return true
        }
        guard copied, emit(force: true) else { return false }
        for bytes in fresh {
            chunk.bytes = bytes
            guard emit(force: true) else { return false }
        }
        let check = Array(hasher.finalize())
        return check.withUnsafeBytes(write)
    }
}
