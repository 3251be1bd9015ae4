import Foundation

/// A counting gate: `enter()` waits while `limit` rows are in flight, `leave()` lets one more in.
///
/// It keeps a million-row manifest in bounded memory: the reader can never run further ahead
/// of the workers than `limit` rows.
final class AdmissionGate: Sendable {
    private let semaphore: DispatchSemaphore

    /// A gate that admits at most `limit` rows at once.
    init(limit: Int) {
        semaphore = DispatchSemaphore(value: max(1, limit))
    }

    /// Waits for room, then takes it.
    func enter() { semaphore.wait() }

    /// Waits for room at most `timeout`; false if none came.
    func enter(timeout: DispatchTimeInterval) -> Bool {
        semaphore.wait(timeout: .now() + timeout) == .success
    }

    /// Takes room only if there is some now; false otherwise.
    func tryEnter() -> Bool { semaphore.wait(timeout: .now()) == .success }

    /// Gives room back.
    func leave() { semaphore.signal() }
}
