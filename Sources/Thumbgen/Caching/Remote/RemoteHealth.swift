import Synchronization

/// The remote cache's circuit breaker: after `threshold` failures in a row (no answer, a 5xx,
/// a refused signature), the remote is not asked again for the rest of the run, so that a
/// remote that is down or stalls costs a run a few timeouts, not one per row. Any success
/// closes the count again. The first failure of a run is reported once, through `warn`.
final class RemoteHealth: Sendable {
    private struct State {
        var failuresInARow = 0
        var open = false
        var warned = false
    }

    private let state = Mutex(State())
    private let threshold: Int
    private let warn: @Sendable (String) -> Void
    /// The store, as the warning names it.
    private let location: String

    init(threshold: Int, location: String, warn: @escaping @Sendable (String) -> Void) {
        self.threshold = max(1, threshold)
        self.location = location
        self.warn = warn
    }

    /// Whether the remote may still be asked.
    var isAvailable: Bool { state.withLock { !$0.open } }

    /// Notes an answer.
    func succeeded() {
        state.withLock { $0.failuresInARow = 0 }
    }

    /// Notes a failure of `what` (`GET v1/outputs/…`); the first of the run is reported.
    func failed(_ what: String, _ failure: RemoteFailure) {
        let first = state.withLock { state -> Bool in
            state.failuresInARow += 1
            if state.failuresInARow >= threshold { state.open = true }
            defer { state.warned = true }
            return !state.warned
        }
        if first {
            warn("remote cache \(location): \(what): \(failure); rows it cannot serve are rendered "
                 + "locally (after \(threshold) failures in a row it is not asked again in this run)")
        }
    }
}

/// What a run did with the remote cache, for its summary and `thumbgen cache stats`.
public struct RemoteCacheCounts: Sendable, Equatable {
    /// Entries the remote served, sound: outputs, URL records and source bodies.
    public var hit = 0
    /// Entries asked for that the remote did not have, or had damaged (`rejected`).
    public var miss = 0
    /// Of the misses, entries the remote had but that failed their checks (a blob whose bytes
    /// do not match its digest, a record that does not parse or names another key).
    public var rejected = 0
    /// Files written to the remote.
    public var upload = 0
    /// Uploads not made: the queue was full, the remote failed or was given up on, or the run
    /// ended before the queue drained.
    public var dropped = 0
    /// Requests that got no usable answer.
    public var failed = 0

    /// No counts.
    public init() {}

    /// `remote cache: 12 hits, 3 misses (1 rejected), 9 uploads`, with drops and failures when
    /// there are any.
    public var line: String {
        var text = "remote cache: \(hit) hits, \(miss) misses"
        if rejected > 0 { text += " (\(rejected) rejected)" }
        text += ", \(upload) uploads"
        if dropped > 0 { text += ", \(dropped) uploads dropped" }
        if failed > 0 { text += ", \(failed) failed requests" }
        return text
    }
}

/// The counts of one run, shared by the threads that ask and the uploads.
final class RemoteTally: Sendable {
    private let counts = Mutex(RemoteCacheCounts())

    /// Changes the counts under the lock and returns what `change` returns.
    func update<T>(_ change: (inout RemoteCacheCounts) -> T) -> T {
        counts.withLock { change(&$0) }
    }
}
