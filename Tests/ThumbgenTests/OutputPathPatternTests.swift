import Foundation
import Testing
@testable import Thumbgen

/// `OutputPathPattern` and its memo: which paths a row's `out` template can still render to,
/// and the memo that reuses the pattern of the row before, never for a row it does not fit.
@Suite("Output path patterns")
struct OutputPathPatternTests {
    static func bytes(_ path: String) -> [UInt8] { Array(path.utf8) }

    @Test("A pattern matches the paths its unknowns can fill, and no other")
    func matches() throws {
        let pattern = try #require(OutputPathPattern(template: "{name}-{w}x{h}.{ext}", name: "cat", fit: .inside, row: 3))
        #expect(pattern.matches(Self.bytes("cat-64x40.jpeg")))
        #expect(!pattern.matches(Self.bytes("cat-64x40.JPEG")))
        #expect(!pattern.matches(Self.bytes("dog-64x40.jpeg")))
        #expect(!pattern.matches(Self.bytes("cat-64xab.jpeg")))
    }

    @Test("The memo gives the row before's pattern only when template, source and fit agree, and never for {row}")
    func memo() throws {
        let memo = OutputPathPatternMemo()
        let first = try #require(memo.pattern(template: "{name}-{fit}-{w}.png", source: .file("/in/cat.jpg"), fit: .inside, row: 2))
        let again = try #require(memo.pattern(template: "{name}-{fit}-{w}.png", source: .file("/in/cat.jpg"), fit: .inside, row: 3))
        #expect(first.pieces == again.pieces)
        let dog = try #require(memo.pattern(template: "{name}-{fit}-{w}.png", source: .file("/in/dog.png"), fit: .inside, row: 4))
        #expect(dog.matches(Self.bytes("dog-inside-64.png")) && !dog.matches(Self.bytes("cat-inside-64.png")))
        let cover = try #require(memo.pattern(template: "{name}-{fit}-{w}.png", source: .file("/in/dog.png"), fit: .cover, row: 5))
        #expect(cover.matches(Self.bytes("dog-cover-64.png")) && !cover.matches(Self.bytes("dog-inside-64.png")))
        let other = try #require(memo.pattern(template: "{name}/{w}.png", source: .file("/in/dog.png"), fit: .cover, row: 6))
        #expect(other.matches(Self.bytes("dog/64.png")))
        // Another source of the same name is another key, and names itself.
        let elsewhere = try #require(memo.pattern(template: "{name}/{w}.png", source: .file("/elsewhere/dog.png"), fit: .cover, row: 7))
        #expect(elsewhere.pieces == other.pieces)
        let remote = try #require(memo.pattern(template: "{name}/{w}.png", source: .url(URL(string: "https://example.com/a/cow.jpg?x=1")!), fit: .cover, row: 8))
        #expect(remote.matches(Self.bytes("cow/64.png")))
        // `{row}` differs from row to row: each row gets its own.
        let row7 = try #require(memo.pattern(template: "{row}-{w}.png", source: .file("/in/dog.png"), fit: .cover, row: 7))
        let row8 = try #require(memo.pattern(template: "{row}-{w}.png", source: .file("/in/dog.png"), fit: .cover, row: 8))
        #expect(row7.matches(Self.bytes("7-64.png")) && !row7.matches(Self.bytes("8-64.png")))
        #expect(row8.matches(Self.bytes("8-64.png")) && !row8.matches(Self.bytes("7-64.png")))
    }

    @Test("A template that renders no path has no pattern, remembered or not")
    func none() {
        let memo = OutputPathPatternMemo()
        #expect(memo.pattern(template: "", source: .file("/in/cat.jpg"), fit: .inside, row: 2) == nil)
        #expect(memo.pattern(template: "", source: .file("/in/cat.jpg"), fit: .inside, row: 3) == nil)
        #expect(memo.pattern(template: "{name}.png", source: .file("/in/cat.jpg"), fit: .inside, row: 4) != nil)
    }

    @Test("Pending paths: a claim asks only earlier rows still pending, in any order of removal and return")
    func pendingPaths() throws {
        let cat = try #require(OutputPathPattern(template: "{name}-{w}.png", name: "cat", fit: .inside, row: 0))
        let dog = try #require(OutputPathPattern(template: "{name}-{w}.png", name: "dog", fit: .inside, row: 0))
        var pending = PendingPaths()
        #expect(pending.isEmpty)
        for row in 2...300 { pending.insert(row, row % 2 == 0 ? cat : dog) }
        // Only rows before the claim's count, and only patterns that can take its path.
        #expect(pending.anyBefore(5, canTake: Self.bytes("cat-10.png")))
        #expect(!pending.anyBefore(2, canTake: Self.bytes("cat-10.png")))
        #expect(!pending.anyBefore(300, canTake: Self.bytes("cow-10.png")))
        // Rows leave out of order: the holes they leave are never matched.
        for row in stride(from: 2, through: 298, by: 2) { #expect(pending.remove(row) != nil) }
        #expect(pending.remove(4) == nil)
        #expect(!pending.anyBefore(300, canTake: Self.bytes("cat-10.png")))
        #expect(pending.anyBefore(300, canTake: Self.bytes("dog-10.png")))
        // A row removed comes back (its write failed) behind later rows, and is asked again.
        pending.insert(10, cat)
        #expect(!pending.anyBefore(10, canTake: Self.bytes("cat-10.png")))
        #expect(pending.anyBefore(11, canTake: Self.bytes("cat-10.png")))
        #expect(pending.remove(10) != nil)
        // Every odd row gone: nothing is pending, and the front was dropped along the way.
        for row in stride(from: 3, through: 299, by: 2) { #expect(pending.remove(row) != nil) }
        #expect(pending.remove(300) != nil)
        #expect(pending.isEmpty)
        #expect(!pending.anyBefore(1000, canTake: Self.bytes("dog-10.png")))
        pending.insert(400, dog)
        #expect(pending.anyBefore(401, canTake: Self.bytes("dog-10.png")))
    }
}
