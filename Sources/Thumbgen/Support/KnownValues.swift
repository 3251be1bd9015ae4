/// Values found for keys, by hash, up to a bound: a memo for work a run repeats on keys that
/// are few but may be more than `RecentValues` scans well (a manifest's `out` templates, one
/// per size and output folder: 100 for ten sizes in ten folders, which a scan of the last 32
/// missed on every row). Full, it forgets everything and starts again: a manifest whose every
/// row has its own key gains nothing from a memo, and loses only the clearing.
struct KnownValues<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The most entries kept.
    let capacity: Int
    private var entries: [Key: Value] = [:]

    /// An empty memo of at most `capacity` entries.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value found for `key`, if known.
    func value(for key: Key) -> Value? {
        entries[key]
    }

    /// Remembers `value` for `key`.
    mutating func note(_ key: Key, _ value: Value) {
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = value
    }
}
