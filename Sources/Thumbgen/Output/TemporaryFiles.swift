import Foundation
import Synchronization

/// The temporary files being written right now, so that an interrupted run removes them.
public final class TemporaryFiles: Sendable {
    /// The process-wide set, used by the CLI's signal handler.
    public static let shared = TemporaryFiles()

    private let paths = Mutex<Set<String>>([])

    /// Makes an empty set.
    public init() {}

    func insert(_ path: String) { paths.withLock { _ = $0.insert(path) } }
    func remove(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    /// Deletes every temporary file (or folder, with its contents) still in flight.
    public func removeAll() {
        for path in paths.withLock({ $0 }) where unlink(path) != 0 {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
