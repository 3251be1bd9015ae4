import Synchronization

/// The folders a run's `AtomicFileWriter` created under `--out` (paths relative to it), so that
/// the record of placed files knows which folders are thumbgen's: `--prune` removes an empty
/// folder only when thumbgen made it, never one the user made.
public final class MadeFolders: Sendable {
    private let made = Mutex<Set<String>>([])

    /// An empty set.
    public init() {}

    /// Notes that `relativePath` was created (only ever on a cold path: a folder is made once).
    func note(_ relativePath: String) {
        made.withLock { _ = $0.insert(relativePath) }
    }

    /// The folders created so far.
    public var paths: Set<String> { made.withLock { $0 } }
}
