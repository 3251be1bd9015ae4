import Foundation
import Testing

/// `--watch`: after its run, thumbgen runs again when files change under the folders it reads
/// (inotify, no polling), until Ctrl-C. Waits here are deadlines for something to happen, not
/// timings: the latency is measured by `scripts/bench_watch`.
@Suite("End to end: --watch", .timeLimit(.minutes(3)))
struct WatchTests {
    static func photo(_ seed: Int) -> RawImage {
        RawImage(width: 120, height: 90) { x, y in
            Colour(r: UInt8((x * seed) % 256), g: UInt8(y % 256), b: UInt8(seed % 256))
        }
    }

    /// Waits (off the concurrency pool) until `condition` holds, for at most `seconds`.
    static func eventually(_ seconds: Double = 30, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
        (try? await OffPool.run {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition() { return true }
                usleep(50_000)
            }
            return condition()
        }) ?? false
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// The CPU ticks (user + system) the process `pid` has used.
    static func ticks(_ pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command's name: state is field 3; utime and stime are 14 and 15.
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    @Test("A folder watched: new, saved-over, burst and deleted images handled, idle CPU near zero, Ctrl-C ends it")
    func folder() async throws {
        let folder = try TemporaryDirectory("watch")
        try folder.write(try Self.photo(1).encoded(as: .jpeg), to: "photos/a.jpg")
        let runner = try CLIRunner(["photos", "--out", "out", "--size", "60", "--cache-dir", "cache", "--prune", "--watch"],
                                   in: folder.url)
        try runner.start()
        #expect(await Self.eventually { runner.stderrText.contains("watching") }, "\(runner.stderrText)")
        #expect(Self.exists(folder.file("out/a-60x45.jpg")))

        // A new file, written in place.
        try folder.write(try Self.photo(2).encoded(as: .jpeg), to: "photos/b.jpg")
        #expect(await Self.eventually { Self.exists(folder.file("out/b-60x45.jpg")) }, "\(runner.stderrText)")
        // An editor's save: a temporary file renamed over the image.
        let before = try Data(contentsOf: folder.file("out/a-60x45.jpg"))
        try folder.write(try Self.photo(3).encoded(as: .jpeg), to: "photos/.a.jpg.swp")
        try FileManager.default.removeItem(at: folder.file("photos/a.jpg"))
        try FileManager.default.moveItem(at: folder.file("photos/.a.jpg.swp"), to: folder.file("photos/a.jpg"))
        #expect(await Self.eventually { (try? Data(contentsOf: folder.file("out/a-60x45.jpg"))) != before },
                "\(runner.stderrText)")
        // A burst: 40 files at once, in a folder made for them.
        let burst = folder.file("incoming")
        for index in 0..<40 { try folder.write(try Self.photo(10 + index).encoded(as: .png), to: "incoming/p\(index).png") }
        try FileManager.default.moveItem(at: burst, to: folder.file("photos/batch"))
        #expect(await Self.eventually {
            (try? FileManager.default.contentsOfDirectory(atPath: folder.file("out/batch").path))?.count == 40
        }, "\(runner.stderrText)")
        // A deletion: with --prune, its output goes.
        try FileManager.default.removeItem(at: folder.file("photos/b.jpg"))
        #expect(await Self.eventually { !Self.exists(folder.file("out/b-60x45.jpg")) }, "\(runner.stderrText)")
        // Each image rendered once over all the runs: every run's summary counts it written once.
        let written = runner.stderrText.matches(of: /(\d+) written/).reduce(0) { $0 + Int($1.1)! }
        #expect(written == 1 + 1 + 1 + 40, "\(runner.stderrText)")

        // Idle: the watch sleeps in poll. Ticks are 1/100 s: at most 1% of 5 s.
        try await Task.sleep(for: .seconds(1))
        let pid = runner.processIdentifier
        let start = try #require(Self.ticks(pid))
        try await Task.sleep(for: .seconds(5))
        let idle = try #require(Self.ticks(pid)) - start
        #expect(idle <= 5, "\(idle) ticks of CPU in 5 s idle")

        runner.send(SIGINT)
        let result = await runner.wait(timeout: .seconds(20))
        #expect(result.status == 130, "\(result.stderr)")
    }

    @Test("--events: one log over the watch's runs, a batch line before each; the log inside the watched folder starts no run")
    func events() async throws {
        let folder = try TemporaryDirectory("watch-events")
        try folder.write(try Self.photo(1).encoded(as: .jpeg), to: "photos/a.jpg")
        let log = folder.file("photos/events.jsonl")
        let runner = try CLIRunner(["photos", "--out", "out", "--size", "60", "--cache-dir", "cache", "--watch",
                                    "--events", "photos/events.jsonl"], in: folder.url)
        try runner.start()
        #expect(await Self.eventually { runner.stderrText.contains("watching") }, "\(runner.stderrText)")
        @Sendable func lines() -> [[String: Any]] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        // The run's own lines in the watched folder are no change: no second run.
        try await Task.sleep(for: .seconds(1.5))
        #expect(!runner.stderrText.contains("running again"), "\(runner.stderrText)")
        try folder.write(try Self.photo(2).encoded(as: .jpeg), to: "photos/b.jpg")
        #expect(await Self.eventually { lines().contains { $0["event"] as? String == "written" && ($0["src"] as? String ?? "").hasSuffix("b.jpg") } },
                "\(runner.stderrText)")
        runner.send(SIGINT)
        _ = await runner.wait(timeout: .seconds(20))
        // Run 1 wrote a; run 2, after its batch line, walked b alone (no rescan of the folder) and wrote it.
        var runs: [[String]] = []
        for line in lines() {
            let event = line["event"] as? String ?? ""
            if event == "batch" { runs.append([]) } else if event == "written" || event == "unchanged" {
                runs[runs.count - 1].append(event + " " + ((line["src"] as? String).map { ($0 as NSString).lastPathComponent } ?? ""))
            }
        }
        #expect(runs.map { $0.sorted() } == [["written a.jpg"], ["written b.jpg"]], "\(runs)")
        #expect(lines().first { $0["run"] as? Int == 2 }?["changed"] as? Int == 1)
    }

    @Test("A site watched: a page the generator writes again, and a new image it shows, are rewritten")
    func site() async throws {
        let folder = try TemporaryDirectory("watch-site")
        try folder.write(try SiteCommandTests.photo(width: 700, height: 400).encoded(as: .jpeg), to: "site/images/a.jpg")
        try folder.write("<p><img src=\"images/a.jpg\" alt=\"a\"></p>\n", to: "site/index.html")
        let runner = try CLIRunner(["site", "site", "--cache-dir", "cache", "--watch"], in: folder.url)
        try runner.start()
        #expect(await Self.eventually { runner.stderrText.contains("watching") }, "\(runner.stderrText)")
        let page = folder.file("site/index.html")
        #expect(try String(contentsOf: page, encoding: .utf8).contains("<picture data-thumbgen="))
        // The generator writes its page again, with a second image.
        try folder.write(try SiteCommandTests.photo(width: 900, height: 500).encoded(as: .jpeg), to: "site/images/b.jpg")
        try folder.write("<p><img src=\"images/a.jpg\" alt=\"a\"><img src=\"images/b.jpg\" alt=\"b\"></p>\n", to: "site/index.html")
        #expect(await Self.eventually {
            ((try? String(contentsOf: page, encoding: .utf8)) ?? "").components(separatedBy: "<picture").count == 3
        }, "\(runner.stderrText)")
        runner.send(SIGINT)
        let result = await runner.wait(timeout: .seconds(20))
        #expect(result.status == 130, "\(result.stderr)")
    }

    @Test("In a terminal, Ctrl-C ends the watch with status 130", .enabled(if: ProgressTests.hasTmux, "needs tmux"))
    func terminal() async throws {
        let folder = try TemporaryDirectory("watch-tmux")
        try folder.write(try Self.photo(1).encoded(as: .jpeg), to: "photos/a.jpg")
        let binary = try #require(TestPaths.thumbgen)
        let status = folder.file("status")
        let socket = "thumbgen-watch-\(UUID().uuidString.prefix(8))"
        let command = "cd '\(folder.url.path)' && '\(binary.path)' photos --out out --size 60 --no-cache --watch; "
            + "echo $? > '\(status.path)'; sleep 5"
        try ProgressTests.tmux(socket, ["new-session", "-d", "-s", "run", "-x", "160", "-y", "10", command])
        defer { _ = try? ProgressTests.tmux(socket, ["kill-server"]) }
        #expect(await Self.eventually {
            ((try? ProgressTests.tmux(socket, ["capture-pane", "-p", "-t", "run"])) ?? "").contains("watching")
        })
        try ProgressTests.tmux(socket, ["send-keys", "-t", "run", "C-c"])
        #expect(await Self.eventually { Self.exists(status) })
        #expect(try String(contentsOf: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "130")
    }
}
