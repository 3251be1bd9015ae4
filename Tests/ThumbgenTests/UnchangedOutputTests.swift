import Foundation
import Testing
@testable import Thumbgen

/// Outputs whose bytes would not change are left alone (mtime and inode kept); changed ones are
/// replaced atomically, with no temporary file left behind.
@Suite("Unchanged outputs and atomic writes")
struct UnchangedOutputTests {
    static let old = Date(timeIntervalSince1970: 978_307_200)  // 2001-01-01

    static func stamp(_ url: URL) throws -> (mtime: Date, inode: Int) {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let mtime = try #require(attributes[.modificationDate] as? Date)
        let inode = try #require((attributes[.systemFileNumber] as? NSNumber)?.intValue)
        return (mtime, inode)
    }

    @Test("A second identical run reports unchanged and touches nothing; new quality rewrites")
    func secondRun() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 300, height: 200), "a.png")
        let manifest = CSV.manifest(["src", "out"], [["a.png", "a.jpg"], ["a.png", "b.webp"]])
        let first = try await space.run(manifest: manifest, ["--width", "90"])
        #expect(first.status == 0, "\(first.result.stderr)")
        #expect(first.report?.rows.map(\.status) == ["written", "written"])
        let output = space.output("a.jpg")
        // Date the output far back, so that any rewrite shows without waiting for the clock.
        try FileManager.default.setAttributes([.modificationDate: Self.old], ofItemAtPath: output.path)
        let before = try Self.stamp(output)
        let bytes = try Data(contentsOf: output)

        let second = try await space.run(manifest: manifest, ["--width", "90"])
        #expect(second.status == 0, "\(second.result.stderr)")
        let report = try #require(second.report)
        #expect(report.rows.map(\.status) == ["unchanged", "unchanged"])
        #expect(report.summary.unchanged == 2 && report.summary.written == 0)
        #expect(report.row(2)?.sha256 == first.report?.row(2)?.sha256)
        #expect(report.row(2)?.out == "a.jpg" && report.row(2)?.bytes == bytes.count)
        let after = try Self.stamp(output)
        #expect(after.mtime == before.mtime && after.inode == before.inode)
        #expect(try Data(contentsOf: output) == bytes)

        let third = try await space.run(manifest: manifest, ["--width", "90", "--quality", "30"])
        #expect(third.status == 0, "\(third.result.stderr)")
        #expect(third.report?.row(2)?.status == "written")
        #expect(third.report?.row(2)?.sha256 != first.report?.row(2)?.sha256)
        let rewritten = try Self.stamp(output)
        #expect(rewritten.mtime > Self.old)
        #expect(try Data(contentsOf: output) != bytes)
        #expect(space.outputFiles == ["a.jpg", "b.webp"])
    }

    @Test("AtomicFileWriter: written, then unchanged, then written again when bytes differ")
    func writerOutcomes() throws {
        let folder = try TemporaryDirectory("writer")
        let writer = try AtomicFileWriter(root: folder.file("out"), inFlight: TemporaryFiles())
        #expect(try writer.write(Data("one".utf8), to: "deep/er/file.bin") == .written)
        #expect(try writer.write(Data("one".utf8), to: "deep/er/file.bin") == .unchanged)
        #expect(try writer.write(Data("two".utf8), to: "deep/er/file.bin") == .written)
        #expect(try writer.write(Data("twoo".utf8), to: "deep/er/file.bin") == .written)
        #expect(try Data(contentsOf: folder.file("out/deep/er/file.bin")) == Data("twoo".utf8))
        #expect(folder.files(under: "out") == ["deep/er/file.bin"])
    }

    @Test("AtomicFileWriter: a folder standing where the file goes fails the write, leaving no temp file")
    func writerFailure() throws {
        let folder = try TemporaryDirectory("writer")
        let writer = try AtomicFileWriter(root: folder.file("out"), inFlight: TemporaryFiles())
        try FileManager.default.createDirectory(at: folder.file("out/taken/inner"), withIntermediateDirectories: true)
        #expect(throws: AtomicFileWriter.Failure.self) { try writer.write(Data("x".utf8), to: "taken") }
        #expect(folder.files(under: "out").isEmpty)
    }

    @Test("AtomicFileWriter: a path through a link to outside fails as escaped")
    func writerEscape() throws {
        let folder = try TemporaryDirectory("writer")
        try FileManager.default.createDirectory(at: folder.file("outside"), withIntermediateDirectories: true)
        let writer = try AtomicFileWriter(root: folder.file("out"), inFlight: TemporaryFiles())
        try FileManager.default.createSymbolicLink(at: folder.file("out/link"),
                                                   withDestinationURL: folder.file("outside"))
        do {
            _ = try writer.write(Data("x".utf8), to: "link/file.bin")
            Issue.record("a write through a link to outside succeeded")
        } catch {
            #expect(error.escaped)
        }
        #expect(folder.files(under: "outside").isEmpty)
    }

    @Test("AtomicFileWriter: a root that is a file is refused")
    func writerRoot() throws {
        let folder = try TemporaryDirectory("writer")
        let file = try folder.write("x", to: "file")
        #expect(throws: AtomicFileWriter.Failure.self) { try AtomicFileWriter(root: file) }
    }
}
