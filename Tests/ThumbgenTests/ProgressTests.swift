import Foundation
import Testing
import Thumbgen

/// The progress line as a person sees it: in a real terminal (tmux), redrawn in place and
/// then replaced by the summary; with standard error in a file, plain lines and no escape code.
@Suite("Results: progress")
struct ProgressTests {
    static var hasTmux: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// 118 images of 400×300, each its own source, made into 200-pixel AVIFs one at a time: a
    /// few seconds of work, so that a busy machine still shows the line change.
    static func workspace() throws -> (Workspace, URL) {
        let space = try Workspace("progress")
        let rows = try (0..<118).map { index -> [String] in
            let picture = RawImage(width: 400, height: 300) { x, y in
                Colour(r: UInt8((x + index) % 256), g: UInt8(y % 256), b: UInt8(index * 2))
            }
            try space.fixture(picture, "\(index).png", quality: 90)
            return ["\(index).png", "\(index).avif"]
        }
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], rows), to: "manifest.csv")
        return (space, manifest)
    }

    /// Runs `tmux -L socket ARGS` and returns what it printed.
    ///
    /// Not through `Process`: the first call starts the tmux server, which keeps every file
    /// descriptor it inherits, Foundation's own watch on its child included, so `Process` never
    /// learns that the client exited. `CleanSpawn` hands it none.
    @discardableResult
    static func tmux(_ socket: String, _ arguments: [String]) throws -> String {
        let scratch = try TemporaryDirectory("tmux")
        let output = scratch.file("out").path
        let pid = try CleanSpawn.start("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null"] + arguments, stdout: output)
        _ = CleanSpawn.wait(pid)
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Runs `command` in a 160×10 tmux pane, and gives each new state of the last line that
    /// `isProgress` picks (seen every 50 ms until `done` appears) and the pane as it ended.
    static func inTerminal(_ command: String, done: URL,
                           isProgress: @escaping @Sendable (Substring) -> Bool) async throws -> ([String], String) {
        let socket = "thumbgen-test-\(UUID().uuidString.prefix(8))"
        try tmux(socket, ["new-session", "-d", "-s", "run", "-x", "160", "-y", "10", command])
        defer { _ = try? tmux(socket, ["kill-server"]) }
        // Polled off the concurrency pool (see OffPool): a late wake-up would miss the run.
        return try await OffPool.run { () throws -> ([String], String) in
            var frames: [String] = []
            let deadline = ContinuousClock.now + .seconds(150)
            while !FileManager.default.fileExists(atPath: done.path), ContinuousClock.now < deadline {
                let pane = try tmux(socket, ["capture-pane", "-p", "-t", "run"])
                if let line = pane.split(separator: "\n").last(where: isProgress) {
                    if frames.last != String(line) { frames.append(String(line)) }
                }
                usleep(50_000)
            }
            usleep(300_000)
            return (frames, try tmux(socket, ["capture-pane", "-p", "-t", "run"]))
        }
    }

    @Test("In a terminal the line is redrawn in place, then gives way to a correct summary",
          .enabled(if: hasTmux, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func terminal() async throws {
        let (space, manifest) = try await OffPool.run { try Self.workspace() }
        let binary = try #require(TestPaths.thumbgen)
        let done = space.folder.file("exit-status")
        let command = "'\(binary.path)' '\(manifest.path)' --out '\(space.out.path)' --no-cache --jobs 1 --size 200"
            + " --report '\(space.reportURL.path)'; echo $? > '\(done.path)'; sleep 5"
        // The shell waits a little after thumbgen, so that the pane can be read as it ended.
        let (frames, final) = try await Self.inTerminal(command, done: done) { $0.contains("/118 rows") }
        #expect(try String(contentsOf: done, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        // Several different states of one line were seen: counts rising, a bar, a rate.
        #expect(frames.count >= 2, "frames seen: \(frames)")
        let counts = frames.compactMap { line -> Int? in
            guard let range = line.range(of: #"(\d+)/118 rows"#, options: .regularExpression) else { return nil }
            return Int(line[range].split(separator: "/")[0])
        }
        #expect(counts == counts.sorted() && Set(counts).count >= 2, "\(frames)")
        #expect(frames.allSatisfy { $0.hasPrefix("thumbgen: [") && $0.contains("/s") }, "\(frames)")
        // The pane ends with the summary alone: the progress line was cleared, not left behind.
        let lines = final.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        let report = try #require(space.reportURL.path.isEmpty ? nil : Report.read(space.reportURL))
        #expect(report.summary.written == 118)
        #expect(lines.first?.hasPrefix("thumbgen: 118 rows: 118 written, 0 unchanged, 0 failed, 0 cancelled") == true,
                "\(lines)")
        #expect(!final.contains("/118 rows"), "\(final)")
    }

    @Test("A walked folder shows its total once counted, and says once how many symbolic links it left alone",
          .enabled(if: hasTmux, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func walkedFolder() async throws {
        let (space, _) = try await OffPool.run { try Self.workspace() }
        let links = space.folder.file("links")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        for index in 0..<5 {
            try FileManager.default.createSymbolicLink(atPath: links.appendingPathComponent("\(index)-link.png").path,
                                                       withDestinationPath: space.folder.file("\(index).png").path)
        }
        let binary = try #require(TestPaths.thumbgen)
        let done = space.folder.file("exit-status")
        let command = "'\(binary.path)' '\(space.folder.url.path)' --out '\(space.out.path)' --no-cache --jobs 1 --size 200"
            + " --format avif; echo $? > '\(done.path)'; sleep 5"
        let (frames, final) = try await Self.inTerminal(command, done: done) { $0.contains(" rows") && $0.contains("/") }
        #expect(try String(contentsOf: done, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // The links are left alone (not followed): 118 rows, the total shown while they run.
        #expect(frames.contains { $0.contains("/118 rows") }, "\(frames)")
        let warning = "thumbgen: skipped 5 symbolic links in the folders walked; --follow-links follows them"
        #expect(final.components(separatedBy: warning).count == 2, "\(final)")
        #expect(final.contains("thumbgen: 118 rows: 118 written"), "\(final)")
    }

    @Test("With standard error in a file: plain progress lines, the summary, no escape code")
    func file() async throws {
        let (space, manifest) = try await OffPool.run { try Self.workspace() }
        let run = try await CLIRunner.run([manifest.path, "--out", space.out.path, "--no-cache", "--jobs", "1",
                                           "--size", "200"],
                                          environment: ["THUMBGEN_PROGRESS_SECONDS": "0.3"])
        #expect(run.status == 0)
        let text = run.stderr
        #expect(!text.contains("\u{1B}"), "escape codes in \(text.debugDescription)")
        #expect(!text.contains("\r"))
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0.contains("/118 rows") && $0.contains("/s") }, "\(text)")
        #expect(lines.last?.hasPrefix("thumbgen: 118 rows: 118 written") == true, "\(text)")

        // -q: nothing at all; --progress never: the summary only.
        for (flag, expected) in [("-q", 0), ("--progress=never", 1)] {
            let run = try await CLIRunner.run([manifest.path, "--out", space.out.path, flag])
            #expect(run.status == 0)
            #expect(run.stderr.split(separator: "\n").count == expected, "\(flag): \(run.stderr)")
        }
    }

    @Test("A manifest from a pipe (bash's <(...)) is read once: the row count never takes its rows")
    func pipeManifest() async throws {
        let space = try Workspace()
        // Absolute: a relative src is resolved against the manifest's folder, here /dev/fd.
        let source = try space.fixture(.quadrants(width: 40, height: 30), "a.png").path
        let rows = (0..<40).map { [source, "\($0).png", String(10 + $0)] }
        let manifest = try space.folder.write(CSV.manifest(["src", "out", "width"], rows), to: "m.csv")
        let binary = try #require(TestPaths.thumbgen)
        let script = "cd '\(space.folder.url.path)' && '\(binary.path)' <(cat '\(manifest.path)') --out out"
            + " --report report.json --progress always --no-cache"
        let status = try await OffPool.run { () throws -> Int32 in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", script]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 0)
        let report = try Report.read(space.reportURL)
        #expect(report.summary.written == 40 && report.rows.map(\.row) == Array(2...41))
    }
}
