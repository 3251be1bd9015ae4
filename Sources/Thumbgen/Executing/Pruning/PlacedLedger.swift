import Foundation
import Synchronization

/// What a run placed under `--out`, gathered from its results as rows end (on any thread, a
/// batch under one lock): each output's path, row, source, size and digest; the sources of
/// failed rows, whose files a prune keeps; in a dry run, the paths rows whose outputs only a
/// render can name may take; and whether any row was cancelled.
///
/// Kept off the warm path's memory: the entries are packed and spilled, 64 KiB at a time, to
/// an unlinked temporary file (`LedgerSpill`), and read back only when the record must change
/// or a prune needs them; a run like one already recorded needs only the fingerprint, summed
/// as rows end.
public final class PlacedLedger: Sendable {
    /// One placed output, as its result gave it.
    struct Entry: Sendable, Equatable {
        var path: String
        var row: String
        /// The `src` cell as written (the identity is made when needed).
        var src: String
        var bytes: Int
        var sha256: String
    }

    struct State: Sendable {
        /// Packed entries not yet spilled (all of them when there is no spill file).
        var pending: [UInt8] = []
        var count = 0
        /// A sum of the entries' hashes: the same set gives the same sum in any order.
        var sum: UInt64 = 0
        var failedSources: [String] = []
        /// Sources of rows a dry run could not name the output of (its size needs a render,
        /// which may fail: their files stay off a dry run's list).
        var unnamedSources: [String] = []
        /// The paths a dry run's rows may write whose outputs it could not name (their size is
        /// in the name and nothing is cached, or a URL to fetch).
        var unnamedPaths = OutputPathPatterns()
        var cancelled = false
    }

    private let state = Mutex(State())
    private let spill = LedgerSpill()
    /// Whether planned rows (`--dry-run`) count as placed.
    private let dryRun: Bool

    /// A ledger for a run (`dryRun`: of what a run would place).
    public init(dryRun: Bool = false) {
        self.dryRun = dryRun
    }

    /// Notes the results of rows that ended together.
    public func note(_ results: [RowResult]) {
        var packed: [UInt8] = []
        var sum: UInt64 = 0
        var count = 0
        var failed: [String] = []
        var unnamed: [String] = []
        var patterns = OutputPathPatterns()
        var cancelled = false
        packed.reserveCapacity(80 * results.count)
        for result in results {
            switch result.status {
            case .written, .unchanged, .planned:
                guard dryRun == (result.status == .planned) else { continue }
                guard let out = result.out else {
                    // What a render may fail to make is undecided; what it may write, kept.
                    unnamed.append(result.src)
                    if let pattern = result.outPattern { patterns.insert(pattern) }
                    continue
                }
                let start = packed.count
                Self.pack(path: out, row: result.id, src: result.src, bytes: result.bytes ?? 0,
                          sha256: result.sha256 ?? "", into: &packed)
                sum &+= packed.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[start...])) }
                count += 1
            case .failed:
                failed.append(result.src)
            case .cancelled:
                cancelled = true
            case .dropped:
                continue
            }
        }
        state.withLock { state in
            state.pending.append(contentsOf: packed)
            state.count += count
            state.sum &+= sum
            state.failedSources.append(contentsOf: failed)
            state.unnamedSources.append(contentsOf: unnamed)
            state.unnamedPaths.formUnion(patterns)
            state.cancelled = state.cancelled || cancelled
            if state.pending.count >= 1 << 16, spill.write(state.pending) { state.pending.removeAll(keepingCapacity: true) }
        }
    }

    /// What was noted so far, but the entries (`entries()`).
    var snapshot: State {
        state.withLock { state in
            var copy = state
            copy.pending = []
            return copy
        }
    }

    /// Hands `body` every entry noted, in the order rows ended (read back from the spill
    /// file, one at a time: the run's entries are never all in memory as values).
    func forEachEntry(_ body: (Entry) -> Void) {
        let bytes = state.withLock { state in spill.readAll() + state.pending }
        var offset = 0
        while let entry = Self.unpack(bytes, at: &offset) { body(entry) }
    }

    /// The run's fingerprint: its entries' hashes summed, mixed with their count.
    static func fingerprint(_ state: State) -> UInt64 {
        mix(state.sum ^ mix(UInt64(state.count)))
    }

    /// Appends an entry: path, row, source and digest each as a 4-byte little-endian length
    /// and its UTF-8 (copied whole: turning the digest's hex into bytes cost more CPU than the
    /// file's bytes it saved), then the size as 8 bytes little-endian.
    static func pack(path: String, row: String, src: String, bytes size: Int, sha256: String,
                     into bytes: inout [UInt8]) {
        func add(_ text: String) {
            let utf8 = text.utf8
            withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
        add(path)
        add(row)
        add(src)
        add(sha256)
        withUnsafeBytes(of: Int64(size).littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The entry packed at `offset`, which moves past it; nil at the end (or on a short read).
    static func unpack(_ bytes: [UInt8], at offset: inout Int) -> Entry? {
        var texts: [String] = []
        for _ in 0..<4 {
            guard offset + 4 <= bytes.count else { return nil }
            let length = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard offset + length <= bytes.count else { return nil }
            texts.append(String(decoding: bytes[offset..<offset + length], as: UTF8.self))
            offset += length
        }
        guard offset + 8 <= bytes.count else { return nil }
        let size = bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        offset += 8
        return Entry(path: texts[0], row: texts[1], src: texts[2], bytes: Int(Int64(bitPattern: size)), sha256: texts[3])
    }

    /// A hash of a packed entry (its lengths keep the fields apart): eight bytes at a time,
    /// each word mixed into the state, the tail and the length last. Only ever compared with
    /// hashes this same function made (`placed_runs`).
    static func hash(_ packed: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var offset = 0
        while offset + 8 <= packed.count {
            let word = UInt64(littleEndian: packed.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < packed.count {
            tail = tail << 8 | UInt64(packed[offset])
            offset += 1
        }
        return mix(hash ^ tail ^ UInt64(packed.count) << 56)
    }

    /// splitmix64's finaliser: every bit of the input moves every bit of the output.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
