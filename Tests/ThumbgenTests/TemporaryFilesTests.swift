import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// The set of temporary files an interrupted run removes: once `removeAll` has run, nothing
/// made later is left behind.
@Suite("TemporaryFiles: removal on interruption")
struct TemporaryFilesTests {
    @Test("removeAll deletes what is in flight; afterwards a new file is not made and a late one is deleted")
    func closedAfterRemoveAll() throws {
        let folder = try TemporaryDirectory("tmpfiles")
        let registry = TemporaryFiles()
        let early = try #require(TemporaryFile(in: folder.url.path, for: "a.jpg", registry: registry))
        #expect(FileManager.default.fileExists(atPath: early.path))

        registry.removeAll()
        #expect(!FileManager.default.fileExists(atPath: early.path))
        // A writer that gets here after the signal makes nothing.
        #expect(TemporaryFile(in: folder.url.path, for: "b.jpg", registry: registry) == nil)
        // One that made its file itself and registers it late finds it deleted.
        let late = try folder.write("partial", to: ".late.tmp")
        registry.insert(late.path)
        #expect(!FileManager.default.fileExists(atPath: late.path))
        #expect(TemporaryDirectory.files(under: folder.url).isEmpty, "\(TemporaryDirectory.files(under: folder.url))")
    }

    /// `removeAll` called while a file is being made (outside the set's lock): it waits, and
    /// the maker, seeing the set closed, deletes its file and gets nil.
    @Test("A file being made while removeAll runs is deleted by its maker before removeAll returns")
    func madeDuringRemoveAll() throws {
        let folder = try TemporaryDirectory("tmpfiles-race")
        let registry = TemporaryFiles()
        let path = folder.file(".racing.tmp").path
        let making = DispatchSemaphore(value: 0), closed = DispatchSemaphore(value: 0)
        let result = Mutex<Bool?>(nil)
        DispatchQueue.global().async {
            let lock = registry.create(path) {
                FileManager.default.createFile(atPath: path, contents: Data("partial".utf8))
                making.signal()
                // Still making when removeAll starts.
                _ = closed.wait(timeout: .now() + 0.2)
                guard case .taken(let taken) = LockedFile.claim(path) else { return nil }
                return taken
            }
            result.withLock { $0 = lock != nil }
        }
        making.wait()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { closed.signal() }
        registry.removeAll()
        #expect(!FileManager.default.fileExists(atPath: path))
        while result.withLock({ $0 == nil }) { usleep(1000) }
        #expect(result.withLock { $0 } == false)
    }
}
