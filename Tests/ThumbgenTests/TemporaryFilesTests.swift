import Foundation
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
}
