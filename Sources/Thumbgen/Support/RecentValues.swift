/// The last few values found for keys, oldest forgotten first: a memo for work a run repeats on
/// a few keys in turn (a manifest's rows cycle through one recipe and template per size), where
/// comparing a key costs less than hashing it, and far less than the work.
struct RecentValues<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    /// The most entries kept.
    let capacity: Int
    private var entries: [(key: Key, value: Value)] = []
    /// The index of the entry found last.
    private var lastFound = 0

    /// An empty memo of at most `capacity` entries.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value found for `key`, if lately. The scan starts at the entry found last and goes
    /// on in turn: rows of one recipe in a run cost one comparison, rows cycling through their
    /// recipes in order (a source's sizes) two.
    mutating func value(for key: Key) -> Value? {
        let count = entries.count
        // By index: `first(where:)` handed each entry to its closure as a copy (a recipe's
        // spec is hundreds of bytes), a copy per entry passed over.
        for step in 0..<count {
            let index = (lastFound + step) % count
            if entries[index].key == key {
                lastFound = index
                return entries[index].value
            }
        }
        return nil
    }

    /// Remembers `value` for `key`, forgetting the oldest entry when full.
    mutating func note(_ key: Key, _ value: Value) {
        if entries.count == capacity {
            entries.removeFirst()
            lastFound = max(0, lastFound - 1)
        }
        entries.append((key, value))
    }
}
