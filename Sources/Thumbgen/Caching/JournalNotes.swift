import Foundation

/// What a run learns for the next journal, row by row: the previous journal's entries it found
/// still true (kept by their offset, copied only when the journal is saved), and the outputs
/// the planner proved up to date the slow way (encoded at once). Sources are shared by their
/// entries, one per path; entries name them by token (their ordinal in the journal saved).
struct JournalNotes {
    /// A source of the next journal: one of the previous journal's, or one the slow path proved.
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
    /// One bit per 8 bytes of the previous journal's entries: those already kept (rows repeated).
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
        } else if !tokens.isEmpty, let noted = tokens[index.sources.path(ordinal)] {
            // Noted by the slow path first. (A steady warm run notes none: no path is made a
            // string for this.)
            token = noted
            previousTokens[ordinal] = token
        } else {
            token = sources.count
            sources.append(.previous(ordinal: ordinal))
            previousTokens[ordinal] = token
        }
        kept.append((Int32(offset), UInt32(token)))
    }

    /// Adds an entry proved the slow way, over `source`; `previous` is the journal entries are
    /// kept from.
    mutating func add(_ entry: JournalEntry, source: JournalSource, previous: JournalIndex?) {
        guard entry.fits else { return }
        var entry = entry
        entry.source = UInt32(token(for: source, previous: previous))
        var writer = JournalWriter()
        entry.encode(into: &writer)
        if fresh.isEmpty || fresh[fresh.count - 1].count + writer.bytes.count > Self.chunkSize {
            fresh.append([])
            fresh[fresh.count - 1].reserveCapacity(Self.chunkSize)
        }
        fresh[fresh.count - 1] += writer.bytes
        freshCount += 1
    }

    /// The token of `source`'s path (one a kept entry's source already has, if any); a later
    /// note of the same path with other facts replaces the earlier (entries noted under those
    /// stay safe: their output key holds the digest).
    private mutating func token(for source: JournalSource, previous: JournalIndex?) -> Int {
        if tokens[source.path] == nil, let previous, let ordinal = previous.sources.ordinal(of: source.path),
           let kept = previousTokens[ordinal] {
            tokens[source.path] = kept
        }
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

    /// Whether the run vouched for only some of `previous`'s entries and proved no row the
    /// slow way: a run over part of the rows, which learnt nothing `previous` does not say.
    func isPart(of previous: JournalIndex) -> Bool {
        freshCount == 0 && kept.count < previous.entryCount
    }

    /// Whether the journal these notes would save says just what `previous` says: every one
    /// of its entries kept, its sources in the same state, and the same generations (then it
    /// need not be saved).
    func repeats(_ previous: JournalIndex?, generations: JournalGenerations) -> Bool {
        guard let previous else { return false }
        return freshCount == 0 && kept.count == previous.entryCount && sources.count == previous.sources.count
            && generations == previous.generations
    }

    /// Entries of the previous journal found still true, and entries proved the slow way.
    var counts: (kept: Int, fresh: Int) { (kept.count, freshCount) }

    /// Hands the next journal's sources to `source`, by ordinal, then its entries to `entry`,
    /// each in `JournalEntry`'s layout (valid only while `entry` runs), in the order of their
    /// hashes, the table's key: inserted so, they fill its pages in turn instead of splitting
    /// them.
    func rows(previous: JournalIndex?, source: (Int, JournalSource) -> Void,
              entry: (UnsafeRawBufferPointer) -> Void) {
        for (ordinal, noted) in sources.enumerated() {
            switch noted {
            case .fresh(let fresh): source(ordinal, fresh)
            case .previous(let old): if let previous { source(ordinal, previous.sources[old]) }
            }
        }
        let old = previous?.bytes ?? []
        // Where each entry is: a kept one by its index in `kept` (chunk -1), a fresh one by its
        // chunk and offset.
        var order: [(hash: UInt64, chunk: Int32, at: Int32)] = []
        order.reserveCapacity(kept.count + freshCount)
        old.withUnsafeBytes { raw in
            let reader = JournalReader(bytes: raw)
            for (index, noted) in kept.enumerated() { order.append((reader.u64(Int(noted.offset)), -1, Int32(index))) }
        }
        for (index, chunk) in fresh.enumerated() {
            chunk.withUnsafeBytes { raw in
                let reader = JournalReader(bytes: raw)
                var offset = 0
                while offset < raw.count {
                    order.append((reader.u64(offset), Int32(index), Int32(offset)))
                    offset += JournalEntry.size(reader, at: offset)
                }
            }
        }
        order.sort { $0.hash < $1.hash }
        var copy: [UInt8] = []
        old.withUnsafeBytes { previousRaw in
            let previousReader = JournalReader(bytes: previousRaw)
            for place in order {
                if place.chunk < 0 {
                    let (offset, token) = kept[Int(place.at)]
                    let start = Int(offset)
                    copy.removeAll(keepingCapacity: true)
                    copy += previousRaw[start..<(start + JournalEntry.size(previousReader, at: start))]
                    withUnsafeBytes(of: token.littleEndian) {
                        copy.replaceSubrange(JournalEntry.sourceAt..<(JournalEntry.sourceAt + 4), with: $0)
                    }
                    copy.withUnsafeBytes(entry)
                } else {
                    fresh[Int(place.chunk)].withUnsafeBytes { raw in
                        let start = Int(place.at)
                        let size = JournalEntry.size(JournalReader(bytes: raw), at: start)
                        entry(UnsafeRawBufferPointer(rebasing: raw[start..<(start + size)]))
                    }
                }
            }
        }
    }
}
