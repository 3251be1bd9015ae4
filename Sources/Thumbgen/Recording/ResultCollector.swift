import Synchronization

/// Gathers row results from the pipeline's threads; optionally tells someone about each.
public final class ResultCollector: Sendable {
    private let results = Mutex<[RowResult]>([])
    private let onEach: (@Sendable (RowResult) -> Void)?

    /// A collector; `onEach` (if any) sees every result as it arrives, one at a time.
    public init(onEach: (@Sendable (RowResult) -> Void)? = nil) {
        self.onEach = onEach
    }

    /// Adds one result.
    public func add(_ result: RowResult) {
        results.withLock { results in
            results.append(result)
            onEach?(result)
        }
    }

    /// Every result so far.
    public var all: [RowResult] { results.withLock { $0 } }
}
