import Foundation
import Synchronization

/// Whether the cache takes writes in this run. The first write it refuses (a full or read-only
/// file system, a quota, a failing disk) is said once through `warn`; every refusal is counted,
/// for the run's summary (`cache.not_stored`). The run goes on: outputs under `--out` are
/// written whatever the cache takes.
final class StoreHealth: Sendable {
    private let state = Mutex((refused: 0, warned: false))
    private let location: String
    private let warn: @Sendable (String) -> Void

    /// The health of the cache at `location`, saying its one warning through `warn`.
    init(location: String, warn: @escaping @Sendable (String) -> Void) {
        self.location = location
        self.warn = warn
    }

    /// Counts a write the cache refused, for `reason` (the system's words).
    func refused(_ reason: String) {
        let first = state.withLock { state in
            state.refused += 1
            defer { state.warned = true }
            return !state.warned
        }
        if first {
            warn("the cache at \(location) stopped taking writes (\(reason)): this run goes on writing its "
                 + "outputs without storing them")
        }
    }

    /// Writes refused so far.
    var refusals: Int { state.withLock { $0.refused } }
}
