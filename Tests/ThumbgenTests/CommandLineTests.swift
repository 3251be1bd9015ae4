import Foundation
import Testing
import Thumbgen

/// The command line as a whole: exit statuses 2 and 3 with messages that name the problem,
/// standard input, and the help text.
@Suite("End to end: command line and exit statuses")
struct CommandLineTests {
    @Test("An unknown column exits 2, naming it and the known ones; nothing is written")
    func unknownColumn() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let run = try await space.run(manifest: "src,tint\na.png,red\n")
        #expect(run.status == 2)
        #expect(run.result.stderr.contains("unknown column 'tint'"), "\(run.result.stderr)")
        #expect(run.result.stderr.contains("known columns: src, out, width"))
        #expect(space.outputFiles.isEmpty)
    }

    @Test("A missing manifest exits 2, naming it")
    func missingManifest() async throws {
        let space = try Workspace()
        let missing = space.folder.file("nope.csv").path
        let result = try await CLIRunner.run([missing, "--out", space.out.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("nope.csv"))
    }

    @Test("A manifest-wide problem exits 2", arguments: [
        ("width,height\n1,2\n", "'src'"), ("", "empty"), ("src,src\n", "more than once"),
        ("src\na.png\n\"b.png\n", "line 3"),
    ])
    func unusableManifest(text: String, mentions: String) async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let run = try await space.run(manifest: text)
        #expect(run.status == 2)
        #expect(run.result.stderr.contains(mentions), "\(run.result.stderr)")
    }

    @Test("A bad flag value exits 2 and names the flag", arguments: [
        (["--fit", "squash"], "squash"), (["--quality", "0"], "quality"), (["--size", "big"], "size"),
        (["--jobs", "0"], "--jobs"), (["--background", "#fff"], "background"),
        (["--gravity", "north"], "gravity"), (["--fail-on", "sometimes"], "fail-on"),
        (["--no-such-flag"], "no-such-flag"), (["--quality", "abc"], "quality"),
        (["--timeout", "inf"], "--timeout"), (["--remote-cache", "http://127.0.0.1:9/c", "--remote-cache-timeout", "inf"],
                                              "--remote-cache-timeout"),
    ])
    func badFlag(arguments: [String], mentions: String) async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let run = try await space.run(manifest: "src\na.png\n", arguments)
        #expect(run.status == 2)
        #expect(run.result.stderr.contains(mentions), "\(run.result.stderr)")
        #expect(space.outputFiles.isEmpty)
    }

    @Test("--out missing from the command line exits 2")
    func outRequired() async throws {
        let space = try Workspace()
        let manifest = try space.folder.write("src\na.png\n", to: "m.csv")
        let result = try await CLIRunner.run([manifest.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--out"))
    }

    @Test("--out naming a regular file exits 3")
    func outIsAFile() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let manifest = try space.folder.write("src\na.png\n", to: "m.csv")
        let file = try space.folder.write("not a folder", to: "file")
        for out in [file.path, file.path + "/sub"] {
            let result = try await CLIRunner.run([manifest.path, "--out", out])
            #expect(result.status == 3, "--out \(out): \(result.stderr)")
            #expect(result.stderr.contains(out))
        }
    }

    @Test("--out in a folder that cannot be written exits 3")
    func outNotWritable() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let manifest = try space.folder.write("src\na.png\n", to: "m.csv")
        // As root, permission bits do not stop writes, so /proc (which refuses new entries to
        // everyone) stands in; otherwise a read-only folder does.
        var targets = ["/proc/thumbgen-test-out"]
        if geteuid() != 0 {
            let locked = space.folder.file("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
            targets += [locked.path, locked.appendingPathComponent("sub").path]
        }
        for out in targets {
            let result = try await CLIRunner.run([manifest.path, "--out", out])
            #expect(result.status == 3, "--out \(out): \(result.stderr)")
        }
        if geteuid() != 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o755],
                                                  ofItemAtPath: space.folder.file("locked").path)
        }
    }

    @Test("A report that cannot be written exits 3")
    func reportNotWritable() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let manifest = try space.folder.write("src\na.png\n", to: "m.csv")
        _ = try space.folder.write("not a folder", to: "blocker")
        let result = try await CLIRunner.run(
            [manifest.path, "--out", space.out.path, "--report", space.folder.file("blocker/r.json").path])
        #expect(result.status == 3)
        #expect(result.stderr.contains("r.json"))
    }

    @Test("A report in a folder that does not exist yet is written there, like --out")
    func reportFolderCreated() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 20, height: 20), "a.png")
        let manifest = try space.folder.write("src\na.png\n", to: "m.csv")
        let report = space.folder.file("out/reports/r.json")
        let result = try await CLIRunner.run([manifest.path, "--out", space.out.path, "--report", report.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Report.read(report).summary.written == 1)
    }

    @Test("- reads the manifest from standard input, relative to the current folder")
    func standardInput() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 40, height: 20), "a.png")
        let csv = try await CLIRunner.run(["-", "--out", "out1"], in: space.folder.url,
                                          stdin: Data("src,width\na.png,20\n".utf8))
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(TemporaryDirectory.files(under: space.folder.file("out1")) == ["a-20x10.png"])
        let json = try await CLIRunner.run(["-", "--out", "out2", "--json-lines"], in: space.folder.url,
                                           stdin: Data(#"{"src":"a.png","height":5}"#.utf8))
        #expect(json.status == 0, "\(json.stderr)")
        #expect(TemporaryDirectory.files(under: space.folder.file("out2")) == ["a-10x5.png"])
    }

    @Test("thumbgen render --help lists every option; thumbgen --help points to it")
    func help() async throws {
        let root = try await CLIRunner.run(["--help"])
        #expect(root.status == 0)
        #expect(root.stdout.contains("render (default)"))
        // Folders lead, and every form a src takes is named.
        let overview = root.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        let folders = try #require(overview.range(of: "folders"))
        #expect(folders.lowerBound < (overview.range(of: "manifest")?.lowerBound ?? overview.endIndex), "\(overview)")
        for form in ["file://", "http(s)://", "s3://", "user:password@"] {
            #expect(overview.contains(form), "thumbgen --help names no \(form)")
        }
        let result = try await CLIRunner.run(["render", "--help"])
        #expect(result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
                    .contains("or auto (the file's own"), "--focus auto is named")
        #expect(result.status == 0)
        for word in ["--out", "--report", "--jobs", "--fail-on", "--size", "--width", "--height",
                     "--fit", "--gravity", "--crop", "--upscale", "--kernel", "--format", "--quality",
                     "--background", "--priority", "--json-lines", "--quiet"] {
            #expect(result.stdout.contains(word), "render --help lacks \(word)")
        }
    }
}
