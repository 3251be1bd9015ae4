import Synchronization

/// A run's stop button, pressed once (SIGINT, SIGTERM, `Pipeline.cancel()`).
///
/// Work that can be stopped from outside registers how while it runs: a libvips evaluation
/// its image's kill, a blocking download its transfer's abort. Pressing the button runs every
/// registered handler once, so that a cancelled run stops its decodes, encodes, hashing and
/// downloads within moments instead of letting them run to their end.
public final class Cancellation: Sendable {
    private struct State {
        var cancelled = false
        var next = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// A button not yet pressed.
    public init() {}

    /// Whether the button was pressed.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Presses the button: every registered handler runs once, on the calling thread.
    public func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            defer { state.handlers = [:] }
            return Array(state.handlers.values)
        }
        handlers.forEach { $0() }
    }

    /// Runs `body` with `handler` registered: it runs if the button is pressed while `body`
    /// runs, or at once when it was pressed before.
    public func whileRegistered<T, E: Error>(_ handler: @escaping @Sendable () -> Void,
                                      _ body: () throws(E) -> T) throws(E) -> T {
        let id = state.withLock { state -> Int? in
            guard !state.cancelled else { return nil }
            state.next += 1
            state.handlers[state.next] = handler
            return state.next
        }
        if id == nil { handler() }
        defer { if let id { state.withLock { _ = $0.handlers.removeValue(forKey: id) } } }
        return try body()
    }
}
