import Foundation
import Synchronization

/// Writes to the remote cache in the background, so that a run never waits for it: a queue of
/// at most `limit` uploads (one more is dropped, and the caller counts it), `concurrency` at a
/// time, drained at the end of the run for at most a given time.
///
/// An upload is a short list of files PUT in order, stopping at the first that fails: a blob
/// before the record that names it, so that the remote never holds a record whose blob was not
/// sent.
final class RemoteUploader: @unchecked Sendable {  // OperationQueue and DispatchGroup are thread-safe
    /// One file to PUT: its kind and name, and its bytes, read only when its turn comes (nil:
    /// gone or damaged locally, so neither it nor what follows is sent).
    struct File: Sendable {
        var kind: RemoteStore.Kind
        var name: String
        var bytes: @Sendable () -> [UInt8]?
    }

    private let queue = OperationQueue()
    private let group = DispatchGroup()
    private let waiting = Mutex(0)
    private let limit: Int
    /// Bytes that queued uploads hold in memory (`reserve`), at most `heldLimit`.
    private let held = Mutex(0)
    /// The most bytes queued uploads may hold in memory; beyond it they read their files when
    /// their turn comes.
    let heldLimit: Int
    /// PUTs one file; false when it failed (the rest of its upload is not sent).
    private let put: @Sendable (File) -> Bool

    init(limit: Int, concurrency: Int, heldLimit: Int = 16 << 20, put: @escaping @Sendable (File) -> Bool) {
        self.limit = limit
        self.heldLimit = heldLimit
        self.put = put
        queue.name = "thumbgen.remote-upload"
        queue.maxConcurrentOperationCount = max(1, concurrency)
    }

    /// Takes room for `bytes` in memory, for an upload that will hold them (`add(_:holding:)`);
    /// false when queued uploads hold `heldLimit` already.
    func reserve(_ bytes: Int) -> Bool {
        held.withLock { held in
            guard held + bytes <= heldLimit else { return false }
            held += bytes
            return true
        }
    }

    /// Gives back room `reserve`d for an upload that was not queued after all.
    func release(_ bytes: Int) {
        held.withLock { $0 -= bytes }
    }

    /// The bytes queued uploads hold in memory now.
    var heldBytes: Int { held.withLock { $0 } }

    /// Queues `files`, which hold `holding` bytes `reserve`d for them (given back when they
    /// are sent); false (nothing queued, the bytes given back) when `limit` uploads are
    /// already waiting.
    func add(_ files: [File], holding: Int = 0) -> Bool {
        let admitted = waiting.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            release(holding)
            return false
        }
        group.enter()
        queue.addOperation { [self] in
            defer {
                release(holding)
                waiting.withLock { $0 -= 1 }
                group.leave()
            }
            for file in files where !put(file) { break }
        }
        return true
    }

    /// Waits until every queued upload is done, or `seconds` pass; returns how many were still
    /// waiting or running then (they are abandoned: the process is about to end).
    func drain(within seconds: Double) -> Int {
        if group.wait(timeout: .now() + seconds) == .success { return 0 }
        queue.cancelAllOperations()
        return waiting.withLock { $0 }
    }
}
