import Foundation
import Testing
@testable import Thumbgen

/// Outputs never land outside `--out`: not through `..`, absolute paths or symbolic links.
@Suite("Output path confinement")
struct PathConfinementTests {
    /// A workspace with a source `a.png`, a folder `outside/` beside `out/`, and a symbolic
    /// link `out/link` pointing at it.
    static func workspaceWithLinkOut() throws -> (Workspace, URL) {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 40, height: 30), "a.png")
        let outside = space.folder.file("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: space.out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: space.output("link"), withDestinationURL: outside)
        return (space, outside)
    }

    @Test("Statically escaping templates fail as invalid_row, links as output_escapes; nothing lands outside")
    func escapes() async throws {
        let (space, outside) = try Self.workspaceWithLinkOut()
        let rows = [
            ["a.png", "../x.jpg"],                                  // 2
            ["a.png", outside.appendingPathComponent("abs.jpg").path], // 3
            ["a.png", "a/../../x.jpg"],                             // 4
            ["a.png", "{name}/../../{name}.jpg"],                   // 5
            ["a.png", "link/x.jpg"],                                // 6
            ["a.png", "link/{name}.{ext}"],                         // 7
            ["a.png", "inside/ok.jpg"],                             // 8
        ]
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], rows))
        #expect(run.status == 1)
        let report = try #require(run.report)
        for line in 2...5 {
            #expect(report.row(line)?.error?.code == "invalid_row", "line \(line)")
            #expect(report.row(line)?.error?.message.contains("out") == true, "line \(line)")
        }
        for line in 6...7 {
            #expect(report.row(line)?.error?.code == "output_escapes", "line \(line)")
        }
        #expect(report.row(8)?.status == "written")
        #expect(TemporaryDirectory.files(under: outside).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: space.folder.file("x.jpg").path))
        #expect(space.outputFiles == ["inside/ok.jpg"])
    }

    @Test("A link to an outside folder deeper in the path creates nothing outside")
    func noFoldersOutside() async throws {
        let (space, outside) = try Self.workspaceWithLinkOut()
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], [["a.png", "link/sub/x.jpg"]]))
        #expect(run.status == 1)
        #expect(run.report?.row(2)?.error?.code == "output_escapes")
        #expect(TemporaryDirectory.files(under: outside).isEmpty)
        let created = (try? FileManager.default.contentsOfDirectory(atPath: outside.path)) ?? []
        #expect(created.isEmpty, "folders created outside --out: \(created)")
    }

    @Test("A link in --out where the output goes is replaced, and its target left alone")
    func linkAsTheOutputFile() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 40, height: 30), "a.png")
        let victim = try space.folder.write("precious", to: "outside/victim.jpg")
        try FileManager.default.createDirectory(at: space.out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: space.output("victim.jpg"), withDestinationURL: victim)
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], [["a.png", "victim.jpg"]]))
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
        let attributes = try FileManager.default.attributesOfItem(atPath: space.output("victim.jpg").path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(Magic.isJPEG(try Data(contentsOf: space.output("victim.jpg"))))
    }

    @Test("OutputPathTemplate.render fills every placeholder")
    func render() throws {
        let values = OutputPathTemplate.Values(name: "cat", width: 64, height: 48, fit: .cover,
                                               ext: "jpg", hash8: "0123abcd", row: 12)
        #expect(try OutputPathTemplate.render("{name}-{w}x{h}.{ext}", values) == "cat-64x48.jpg")
        #expect(try OutputPathTemplate.render("{fit}/{row}/{hash8}.{ext}", values) == "cover/12/0123abcd.jpg")
        #expect(try OutputPathTemplate.render("{name}{name}.png", values) == "catcat.png")
    }

    @Test("OutputPathTemplate.render refuses a rendered path that escapes")
    func renderRefuses() {
        let dots = OutputPathTemplate.Values(name: "..", width: 1, height: 1, fit: .inside,
                                             ext: "jpg", hash8: "00000000", row: 2)
        #expect(throws: OutputPathTemplate.Problem.self) { try OutputPathTemplate.render("{name}/x.jpg", dots) }
        #expect(throws: OutputPathTemplate.Problem.self) { try OutputPathTemplate.render("{name}", dots) }
    }

    @Test("A source whose name looks like a placeholder keeps its name")
    func placeholderLookingName() throws {
        let values = OutputPathTemplate.Values(name: "{row}", width: 1, height: 1, fit: .inside,
                                               ext: "jpg", hash8: "00000000", row: 2)
        let rendered = try OutputPathTemplate.render("{name}.{ext}", values)
        #expect(rendered == "{row}.jpg")
    }
}
