/// Output path patterns asked together whether any can render to a path (a dry run's rows
/// whose paths only a render can tell, `PruneDecision`): grouped by the text before their
/// first unknown, so that a path is matched only against those whose text it starts with.
struct OutputPathPatterns: Sendable {
    /// The patterns, each once, by their leading text.
    private var byPrefix: [[UInt8]: [OutputPathPattern]] = [:]
    /// The lengths of those texts: a path is looked up cut at each.
    private var lengths: Set<Int> = []

    /// None.
    init() {}

    /// Whether there are none.
    var isEmpty: Bool { byPrefix.isEmpty }

    /// Adds `pattern`, unless it is held already (a source's rows, one per size, share one).
    mutating func insert(_ pattern: OutputPathPattern) {
        guard byPrefix[pattern.prefix]?.contains(pattern) != true else { return }
        byPrefix[pattern.prefix, default: []].append(pattern)
        lengths.insert(pattern.prefix.count)
    }

    /// Adds every pattern of `other`.
    mutating func formUnion(_ other: OutputPathPatterns) {
        for patterns in other.byPrefix.values { patterns.forEach { insert($0) } }
    }

    /// Whether any pattern can render to `path` (normalized, relative to `--out`).
    func mayProduce(_ path: String) -> Bool {
        guard !byPrefix.isEmpty else { return false }
        let bytes = Array(path.utf8)
        for length in lengths where length <= bytes.count {
            if byPrefix[Array(bytes.prefix(length))]?.contains(where: { $0.matches(bytes) }) == true { return true }
        }
        return false
    }
}
