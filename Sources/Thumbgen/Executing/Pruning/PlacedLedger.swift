import Synchronization

/// What a run placed under `--out`, gathered from its results as rows end (on any thread, a
/// batch under one lock): each output's path, row, source, size and digest; the sources of
/// failed rows, whose files a prune keeps; and whether any row was cancelled. Kept cheap for
/// the warm path: the source identity is made only for entries the record lacks, and the
/// run's fingerprint is summed as rows end.
public final class PlacedLedger: Sendable {
    /// One placed output, as its result gave it.
    struct Entry: Sendable {
        var path: String
        var row: String
        /// The `src` cell as written (the identity is made when needed).
        var src: String
        var bytes: Int
        var sha256: String
    }

    struct State: Sendable {
        var entries: [Entry] = []
        /// A sum of the entries' hashes: the same set gives the same sum in any order.
        var sum: UInt64 = 0
        var failedSources: [String] = []
        /// Sources of rows a dry run could not name the output of (its size needs a render).
        var unnamedSources: [String] = []
        var cancelled = false
    }

    private let state = Mutex(State())
    /// Whether planned rows (`--dry-run`) count as placed.
    private let dryRun: Bool

    /// A ledger for a run (`dryRun`: of what a run would place).
    public init(dryRun: Bool = false) {
        self.dryRun = dryRun
    }

    /// Notes the results of rows that ended together.
    public func note(_ results: [RowResult]) {
        var entries: [Entry] = []
        var sum: UInt64 = 0
        var failed: [String] = []
        var unnamed: [String] = []
        var cancelled = false
        for result in results {
            switch result.status {
            case .written, .unchanged, .planned:
                guard dryRun == (result.status == .planned) else { continue }
                guard let out = result.out else {
                    unnamed.append(result.src)
                    continue
                }
                let entry = Entry(path: out, row: result.id, src: result.src, bytes: result.bytes ?? 0,
                                  sha256: result.sha256 ?? "")
                sum &+= Self.hash(entry)
                entries.append(entry)
            case .failed:
                failed.append(result.src)
            case .cancelled:
                cancelled = true
            case .dropped:
                continue
            }
        }
        state.withLock { state in
            state.entries.append(contentsOf: entries)
            state.sum &+= sum
            state.failedSources.append(contentsOf: failed)
            state.unnamedSources.append(contentsOf: unnamed)
            state.cancelled = state.cancelled || cancelled
        }
    }

    /// What was noted so far.
    var snapshot: State { state.withLock { $0 } }

    /// The run's fingerprint: its entries' hashes summed, mixed with their count.
    static func fingerprint(_ state: State) -> UInt64 {
        mix(state.sum ^ mix(UInt64(state.entries.count)))
    }

    /// FNV-1a over the entry's fields (each ended by 0xFF, which UTF-8 never holds), mixed.
    static func hash(_ entry: Entry) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ text: String) {
            var copy = text
            copy.withUTF8 { bytes in
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            }
            hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01b3
        }
        add(entry.path)
        add(entry.src)
        add(entry.row)
        add(entry.sha256)
        return mix(hash ^ UInt64(truncatingIfNeeded: entry.bytes))
    }

    /// splitmix64's finaliser: every bit of the input moves every bit of the output.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
