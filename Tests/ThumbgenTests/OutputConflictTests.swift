import Crypto
import Foundation
import Testing
import Thumbgen

/// No two rows of a run write one file: the earlier row in manifest order keeps a path, a later
/// row with the same bytes is `unchanged`, and one with other bytes fails `output_conflict`.
@Suite("End to end: output conflicts")
struct OutputConflictTests {
    static func sha256(_ url: URL) throws -> String {
        SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
    }

    @Test("Two files named alike in different folders, at the default out: the later row fails")
    func sameStemDifferentFolders() async throws {
        let space = try Workspace()
        try FileManager.default.createDirectory(at: space.folder.file("a"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: space.folder.file("b"), withIntermediateDirectories: true)
        try space.fixture(RawImage.quadrants(width: 80, height: 60), "a/photo.png")
        try space.fixture(RawImage.quadrants(width: 80, height: 60, [.blue, .yellow, .red, .green]), "b/photo.png")
        let run = try await space.run(manifest: CSV.manifest(["src"], [["a/photo.png"], ["b/photo.png"]]),
                                      ["--size", "40x40"])
        #expect(run.status == 1, "\(run.result.stderr)")
        let first = try #require(run.report?.row(2)), second = try #require(run.report?.row(3))
        #expect(first.status == "written" && first.out == "photo-40x30.png")
        #expect(second.status == "failed" && second.error?.code == "output_conflict")
        #expect(second.error?.message.contains("row 2") == true, "\(second.error?.message ?? "")")
        // The report tells the truth about the file on disk.
        #expect(try Self.sha256(space.output("photo-40x30.png")) == first.sha256)
        #expect(run.report?.summary.failed == 1 && run.report?.summary.written == 1)
    }

    @Test("Two rows that would write the same bytes to one path: the second is unchanged")
    func identicalBytes() async throws {
        let space = try Workspace()
        try space.fixture(RawImage.quadrants(width: 80, height: 60), "photo.png")
        let rows = [["photo.png", "same.png"], ["photo.png", "same.png"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "40x40", "--no-cache"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.row(2)?.status == "written")
        #expect(run.report?.row(3)?.status == "unchanged")
        #expect(run.report?.row(3)?.sha256 == run.report?.row(2)?.sha256)
    }

    @Test("The earlier row keeps the path even when the later row finishes first")
    func earlierRowWinsWhateverFinishesFirst() async throws {
        let space = try Workspace()
        // Row 2 is slow (a large source), row 3 fast; both name out=same.png.
        // Made off the concurrency pool: encoding 12 MP would hold a pool thread for a second.
        try await OffPool.run { _ = try space.folder.write(try RawImage.quadrants(width: 400, height: 300).scaledPNG(by: 10), to: "big.png") }
        try space.fixture(RawImage.quadrants(width: 40, height: 30, [.blue, .yellow, .red, .green]), "small.png")
        let rows = [["big.png", "same.png"], ["small.png", "same.png"]]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows), ["--size", "40x40", "--no-cache"])
        #expect(run.status == 1, "\(run.result.stderr)")
        let first = try #require(run.report?.row(2)), second = try #require(run.report?.row(3))
        #expect(first.status == "written", "\(first)")
        #expect(second.error?.code == "output_conflict", "\(second)")
        #expect(try Self.sha256(space.output("same.png")) == first.sha256)
        #expect(space.outputFiles == ["same.png"])
    }

    @Test("A cached rerun keeps the same owner, and a conflict is still reported")
    func cachedRerun() async throws {
        let space = try Workspace()
        try space.fixture(RawImage.quadrants(width: 80, height: 60), "one.png")
        try space.fixture(RawImage.quadrants(width: 80, height: 60, [.blue, .yellow, .red, .green]), "two.png")
        let rows = [["one.png", "x.png"], ["two.png", "x.png"]]
        let manifest = CSV.manifest(["src", "out"], rows)
        let first = try await space.run(manifest: manifest, ["--size", "40x40"])
        let second = try await space.run(manifest: manifest, ["--size", "40x40"])
        for run in [first, second] {
            #expect(run.report?.row(2)?.error == nil)
            #expect(run.report?.row(3)?.error?.code == "output_conflict")
            #expect(try Self.sha256(space.output("x.png")) == run.report?.row(2)?.sha256)
        }
    }

    @Test("A cached row that must wait for an earlier row's path is served, not cancelled")
    func cachedRowWaitsForItsPath() async throws {
        let space = try Workspace()
        let source = try space.fixture(RawImage.quadrants(width: 80, height: 60), "photo.png")
        let first = try await space.run(manifest: CSV.manifest(["src", "size"], [["photo.png", "40"]]))
        #expect(first.status == 0, "\(first.result.stderr)")
        // Same bytes, new stamp: the digest is known only once the decode has hashed the file,
        // and there row 3's cached output asks for a path row 2 (same name, not yet rendered)
        // could still take.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-30)],
                                              ofItemAtPath: source.path)
        let second = try await space.run(manifest: CSV.manifest(["src", "size"], [["photo.png", "60"], ["photo.png", "40"]]))
        #expect(second.status == 0, "\(second.result.stderr)")
        #expect(second.report?.row(2)?.status == "written")
        #expect(second.report?.row(3)?.status == "unchanged", "\(String(describing: second.report?.row(3)))")
        #expect(second.report?.row(3)?.cache == "hit")
    }
}
