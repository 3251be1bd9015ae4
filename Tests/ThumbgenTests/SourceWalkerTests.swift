import Foundation
import Testing
@testable import Thumbgen

/// The walk and the manifest it makes, in process: glob matching, the order and the skips,
/// and names no cell can hold as they are, read back through the real manifest reader.
@Suite("Gathering: walk, globs, the manifest of a tree")
struct SourceWalkerTests {
    /// What a walk of `paths` (absolute: the tests share one working folder) finds, and its
    /// problems.
    static func walk(_ paths: [String], rules: WalkRules = WalkRules()) throws -> ([FoundSource], [GatherError]) {
        let walker = SourceWalker(try paths.map { try InputPath.classify($0) }, rules: rules)
        var found: [FoundSource] = []
        while let next = walker.next() { found.append(next) }
        return (found, walker.problems)
    }

    @Test("Globs: * and ? within a name, [..] sets, ** across any number of folders")
    func patterns() {
        let pattern = PathPattern("**/*.jpg")
        #expect(pattern.matches(["a.jpg"]) && pattern.matches(["x", "y", "a.jpg"]))
        #expect(!pattern.matches(["a.png"]) && !pattern.matches(["x", "a.jpgx"]))
        let one = PathPattern("20??/[ab]*.png")
        #expect(one.matches(["2024", "a1.png"]) && !one.matches(["2024", "c1.png"]) && !one.matches(["2024", "x", "a.png"]))
        #expect(one.canHold(["2024"]) && !one.canHold(["1999x"]) && !one.canHold(["2024", "x"]))
        #expect(PathPattern("a/**").matches(["a", "b", "c.png"]))
    }

    @Test("Files by content in byte order, hidden and skipped folders left out, even one made during the walk")
    func walkOrderAndSkips() throws {
        let folder = try TemporaryDirectory("walk")
        let photos = try PhotoTree.make(in: folder).path
        let (found, problems) = try Self.walk([photos + "/", photos + "/cover.png"])
        #expect(found.map(\.path) == PhotoTree.images.map { photos + "/" + $0 } + [photos + "/cover.png"])
        // A named file's dir is empty.
        #expect(found.map(\.directory) == ["2024/Été à Paris", "2024/Été à Paris", "", ""])
        #expect(problems.isEmpty)
        // A skipped folder that does not exist yet when the walk starts, named through `..`.
        let rules = WalkRules(skipping: [folder.file("photos/2024/../zz out").path])
        let walker = SourceWalker([.folder(folder.file("photos").path)], rules: rules)
        #expect(walker.next()?.directory == "2024/Été à Paris")
        try folder.write(try RawImage.quadrants(width: 8, height: 8).encoded(as: .png), to: "photos/zz out/made.png")
        var rest: [String] = []
        while let next = walker.next() { rest.append(next.directory) }
        #expect(rest == ["2024/Été à Paris", ""])
    }

    @Test("Following links: the link to an image is taken, the loop is a problem naming it, and the walk goes on")
    func linkLoop() throws {
        let folder = try TemporaryDirectory("loop")
        let photos = try PhotoTree.make(in: folder).path
        let (found, problems) = try Self.walk([photos], rules: WalkRules(followLinks: true))
        #expect(found.map(\.path) == (PhotoTree.images + ["link.png"]).map { photos + "/" + $0 })
        #expect(problems == [.linkLoop(link: photos + "/2024/back", target: photos)])
    }

    @Test("Names with commas, quotes, newlines and white space at the ends come back from the CSV as the same records and files")
    func oddNamesRoundTrip() throws {
        let folder = try TemporaryDirectory("odd")
        let names = [" lead.png", "trail .png", "a,b.png", "say \"hi\".png", "two\nlines.png", "ünï.png"]
        for name in names {
            try folder.write(try RawImage.quadrants(width: 8, height: 8).encoded(as: .png), to: "photos/d\nir/" + name)
        }
        let photos = folder.url.standardizedFileURL.path + "/photos"
        for jsonLines in [false, true] {
            let tree = TreeManifest(SourceWalker([.folder(photos)], rules: WalkRules()), sizes: ["8", "4"], formats: [],
                                    defaults: [.fit: "cover"], numbering: jsonLines ? .jsonLines : .csv)
            let writer = ManifestWriter(columns: tree.columns, jsonLines: jsonLines)
            var made: [ManifestRecord] = [], text = writer.header
            while case .success(let record)? = tree.next() {
                made.append(record)
                text += writer.line(record)
            }
            #expect(made.count == 12)
            let read = try ManifestText.entries(text, name: jsonLines ? "m.jsonl" : "m.csv").map { try $0.get() }
            #expect(read == made, "\(text)")
            // Every src names its file once parsed, the white space kept.
            let parser = RowParser(baseDirectory: folder.url.path)
            let paths = try read.map { try parser.parse($0).get().source.description }
            #expect(Set(paths) == Set(names.map { photos + "/d\nir/" + $0 }))
        }
    }
}
