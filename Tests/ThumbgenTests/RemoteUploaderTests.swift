import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// `RemoteUploader`'s bounds: uploads hold their bytes in memory only within `heldLimit`, and
/// every byte reserved comes back, whether the upload is sent, refused by a full queue or
/// given up.
@Suite("Remote uploads: bytes held in memory")
struct RemoteUploaderTests {
    @Test("Bytes in hand within the budget, given back once sent; a full queue gives them back at once")
    func heldBytes() {
        let gate = DispatchSemaphore(value: 0)
        let sent = Mutex<[String: [UInt8]]>([:])
        let uploader = RemoteUploader(limit: 2, concurrency: 1, heldLimit: 100) { file in
            gate.wait()
            sent.withLock { $0[file.name] = file.bytes() }
            return true
        }
        #expect(uploader.reserve(60))
        #expect(!uploader.reserve(60), "over the budget: the next upload reads its file instead")
        #expect(uploader.add([RemoteUploader.File(kind: .blobs, name: "a") { Array(repeating: 1, count: 60) }], holding: 60))
        #expect(uploader.reserve(40))
        #expect(uploader.add([RemoteUploader.File(kind: .blobs, name: "b") { [2] }], holding: 40))
        #expect(uploader.heldBytes == 100)
        // The queue holds two uploads: a third is refused, and its reservation comes back.
        #expect(!uploader.reserve(1))
        gate.signal()   // "a" is sent: its 60 bytes come back
        while uploader.heldBytes > 40 { usleep(1000) }
        #expect(uploader.reserve(30))
        #expect(uploader.add([RemoteUploader.File(kind: .blobs, name: "c") { [3] }], holding: 30))
        #expect(uploader.reserve(30))
        #expect(!uploader.add([RemoteUploader.File(kind: .blobs, name: "d") { [4] }], holding: 30),
                "two uploads wait already")
        #expect(uploader.heldBytes == 70)
        gate.signal()
        gate.signal()
        #expect(uploader.drain(within: 10) == 0)
        #expect(uploader.heldBytes == 0)
        #expect(sent.withLock { $0.keys.sorted() } == ["a", "b", "c"])
        #expect(sent.withLock { $0["a"]?.count } == 60)
    }

    @Test("A reservation for an upload never queued is given back")
    func release() {
        let uploader = RemoteUploader(limit: 4, concurrency: 1, heldLimit: 10) { _ in true }
        #expect(uploader.reserve(10))
        uploader.release(10)
        #expect(uploader.heldBytes == 0 && uploader.reserve(10))
    }
}
