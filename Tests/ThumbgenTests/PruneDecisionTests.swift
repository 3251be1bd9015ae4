import Foundation
import Testing
@testable import Thumbgen

/// `PruneDecision`: which files on record a prune removes, the one decision a run and a dry run
/// share. It decides only: nothing is removed.
@Suite("Prune decision")
struct PruneDecisionTests {
    @Test("A file goes when no row produced it or may, its source is decided and in the shard, and it is unchanged; a changed, gone or escaping one leaves the record")
    func decides() throws {
        let folder = try TemporaryDirectory("prune-decision")
        // Sources by identity: one in shard 0 of 2 and one out of it.
        let sources = (0..<40).map { SourceIdentity.of(src: "s\($0).jpg") }
        let shard = try Shard(index: 0, count: 2)
        let mine = try #require(sources.first { shard.owns(identity: $0) })
        let theirs = try #require(sources.first { !shard.owns(identity: $0) })
        var record = PlacedRecord()
        func place(_ path: String, source: String = mine) throws {
            _ = try folder.write(path, to: path)
            record.files[path] = PlacedFile(path: path, row: path, source: source, bytes: path.utf8.count,
                                            sha256: ContentDigest.of(text: path))
        }
        try place("old/a.jpg")
        try place("made.jpg")
        try place("hero.jpg")
        try place("failed.jpg", source: "failed-source")
        try place("other-shard.jpg", source: theirs)
        try place("edited.jpg")
        try place("deleted.jpg")
        _ = try folder.write("the user's now", to: "edited.jpg")
        try FileManager.default.removeItem(at: folder.file("deleted.jpg"))
        record.files["../escape.jpg"] = PlacedFile(path: "../escape.jpg", row: "x", source: mine, bytes: 1, sha256: "")
        var unnamed = OutputPathPatterns()
        unnamed.insert(try #require(OutputPathPattern(template: "hero.jpg", name: "b", fit: .inside, row: 3)))
        let root = try #require(realpath(folder.url.path, nil))
        defer { free(root) }
        let rootPath = String(cString: root)

        let decision = PruneDecision(previous: record, produced: ["made.jpg"], unnamed: unnamed,
                                     undecided: ["failed-source"], shard: shard, root: rootPath)
        #expect(decision.removals.map(\.file.path) == ["old/a.jpg"])
        #expect(decision.removals.map(\.path) == [rootPath + "/old/a.jpg"])
        #expect(decision.changed.map(\.path) == ["edited.jpg"])
        #expect(decision.forgotten.sorted() == ["../escape.jpg", "deleted.jpg"])
        #expect(FileManager.default.fileExists(atPath: folder.file("old/a.jpg").path), "a decision removed a file")
        // Without the shard, the other shard's file goes too.
        let whole = PruneDecision(previous: record, produced: ["made.jpg"], unnamed: unnamed,
                                  undecided: ["failed-source"], shard: nil, root: rootPath)
        #expect(whole.removals.map(\.file.path) == ["old/a.jpg", "other-shard.jpg"])
    }
}
