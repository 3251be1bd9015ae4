/// Output path patterns asked together whether any can render to a path (a dry run's rows
/// whose paths only a render can tell, `PruneDecision`): grouped by the text before their
/// first unknown, so that a path is matched only against those whose text it starts with.
struct OutputPathPatterns: Sendable {
    /// The patterns, each once, by their leading text (a template that begins with `{w}` or
    /// `{hash8}` puts all its rows' under the empty one).
    private var byPrefix: [[UInt8]: Set<OutputPathPattern>] = [:]
    /// The lengths of those texts: a path is looked up cut at each.
    private var lengths: Set<Int> = []

    /// None.
    init() {}

    /// Adds `pattern`, unless it is held already (a source's rows, one per size, share one).
    mutating func insert(_ pattern: OutputPathPattern) {
        byPrefix[pattern.prefix, default: []].insert(pattern)
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
