import Foundation
import Synchronization

/// An `Operation` that finishes when its work says so, not when `main()` returns: the base of
/// stages that wait on something outside the queue's thread (a download on the transfer loop).
///
/// Subclasses override `execute()` and call `finish()` exactly once. The KVO notifications on
/// `isExecuting` and `isFinished` are what OperationQueue watches to start dependents.
class AsyncOperation: Operation, @unchecked Sendable {
    private enum Phase { case ready, executing, finished }
    private let phase = Mutex(Phase.ready)

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { phase.withLock { $0 == .executing } }
    override var isFinished: Bool { phase.withLock { $0 == .finished } }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        phase.withLock { $0 = .executing }
        didChangeValue(forKey: "isExecuting")
        execute()
    }

    /// Starts the work; must lead to one call of `finish()`.
    func execute() {
        finish()
    }

    /// Marks the operation finished (once; later calls do nothing).
    func finish() {
        let wasExecuting = phase.withLock { $0 == .executing }
        guard wasExecuting else { return }
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        phase.withLock { $0 = .finished }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
