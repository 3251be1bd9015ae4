import Foundation

/// Runs blocking work (waiting for a process, polling a terminal) on a thread of its own.
///
/// Swift's concurrency pool has one thread per core, two here: a test that blocks one of
/// them for seconds starves every other suite's `await`s, and tests that poll with
/// `Task.sleep` then miss what they watch for (seen: a SIGINT test whose run ended before its
/// loop woke up). Blocking work goes here instead, and the test awaits it without holding a
/// pool thread.
enum OffPool {
    /// The result of `body`, run on a new thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
