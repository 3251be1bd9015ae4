import Foundation
import Testing

/// `-` as a destination: `--report -` and `--index -` write their document to standard output
/// when the run ends (never a file named `-`); two destinations on standard output, or a
/// contact sheet there, are refused before any work.
@Suite("Standard output as --report and --index")
struct StandardOutputTests {
    @Test("--report - and --index - print their JSON, and leave no file named -", arguments: ["--report", "--index"])
    func document(flag: String) async throws {
        let space = try Workspace("stdout-\(flag.dropFirst(2))")
        try space.fixture(.quadrants(width: 120, height: 80), "a.jpg", as: .jpeg)
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], [["a.jpg", "a.png"], ["a.jpg", "b.webp"]]),
                                              to: "manifest.csv")
        let run = try await CLIRunner.run([manifest.path, "--out", space.out.path, "--size", "32", flag, "-"],
                                          in: space.folder.url, cacheDirectory: space.cache)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(object?["schema"] as? Int == 1, "\(run.stdout.prefix(300))")
        if flag == "--report" {
            #expect((object?["rows"] as? [Any])?.count == 2)
        } else {
            #expect((object?["sources"] as? [Any])?.count == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: space.folder.file("-").path))
        #expect(!FileManager.default.fileExists(atPath: space.out.appendingPathComponent("-").path))
    }

    @Test("Two destinations on standard output, or the contact sheet there, are refused",
          arguments: [["--report", "-", "--events", "-"], ["--index", "-", "--report", "-"], ["--html", "-"]])
    func refused(arguments: [String]) async throws {
        let space = try Workspace("stdout-refused")
        try space.fixture(.quadrants(width: 120, height: 80), "a.jpg", as: .jpeg)
        let run = try await CLIRunner.run([space.folder.file("a.jpg").path, "--out", space.out.path, "--size", "32"]
                                              + arguments, cacheDirectory: space.cache)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("standard output"), "\(run.stderr)")
        #expect(space.outputFiles.isEmpty, "nothing was made")
    }
}
