import Foundation

/// Serialises the building and the freeing of libvips operation graphs across threads.
///
/// liborc 0.4.33 (Debian 12) keeps the executable memory of its compiled vector programs in one
/// process-wide list that it does not guard against concurrent use: libvips compiles a program
/// when it builds a resampling operation and frees it when the operation goes away, and two
/// threads doing so at once corrupted the heap (2 crashes in 10 runs of a 5,000-row manifest;
/// under AddressSanitizer, a SEGV in `orc_code_allocate_codemem`). Building and freeing take
/// microseconds, so one lock costs nothing measurable, while the vector code saves about 3% of
/// the CPU time of the benchmark corpus (libvips' plain C resampler is slower). Evaluation, where
/// the time goes, runs in parallel as before.
enum VipsGraphLock {
    /// Recursive: building a graph drops references to intermediate images, which frees under
    /// the same lock.
    nonisolated(unsafe) private static let lock = NSRecursiveLock()

    /// Runs `body` while no other thread builds or frees a libvips graph.
    static func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
