/// The last few values found for keys, oldest forgotten first: a memo for work a run repeats on
/// a few keys in turn (a manifest's rows cycle through one recipe and template per size), where
/// comparing a key costs less than hashing it, and far less than the work.
struct RecentValues<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    /// The most entries kept.
    let capacity: Int
    private var entries: [(key: Key, value: Value)] = []

    /// An empty memo of at most `capacity` entries.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value found for `key`, if lately.
    func value(for key: Key) -> Value? {
        entries.first { $0.key == key }?.value
    }

    /// Remembers `value` for `key`, forgetting the oldest entry when full.
    mutating func note(_ key: Key, _ value: Value) {
        if entries.count == capacity { entries.removeFirst() }
        entries.append((key, value))
    }
}
