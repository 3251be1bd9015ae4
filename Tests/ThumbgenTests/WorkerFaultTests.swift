import Foundation
import Testing
import Thumbgen

/// Worker isolation: a decoder that crashes, hangs or allocates without end fails only the
/// rows of its own source, and the run goes on. The faults are made on purpose by
/// `THUMBGEN_WORKER_FAULT`, which only the worker mode honours.
@Suite("Worker isolation: faults")
struct WorkerFaultTests {
    /// Three sources, five rows: the victim's two rows, and three bystanders'.
    static let rows = [
        ["victim.png", "victim-a.webp", "64"], ["good.png", "good-a.jpg", "48"],
        ["victim.png", "victim-b.png", "32"], ["good.png", "good-b.webp", "40"],
        ["other.jpg", "other.png", "24"],
    ]
    static let manifest = CSV.manifest(["src", "out", "size"], rows)
    static let bystanders = ["good-a.jpg", "good-b.webp", "other.png"]

    static func workspace() throws -> Workspace {
        let space = try Workspace()
        try space.fixture(RawImage.quadrants(width: 120, height: 90), "victim.png")
        try space.fixture(RawImage.quadrants(width: 160, height: 100), "good.png")
        try space.fixture(RawImage.quadrants(width: 90, height: 90), "other.jpg", as: .jpeg)
        return space
    }

    /// The pids of the processes whose environment holds `text` (zombies have none).
    static func processes(withEnvironmentContaining text: String) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.filter { pid in
            guard Int(pid) != nil, let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return String(decoding: environ, as: UTF8.self).contains(text)
        }
    }

    /// What a clean run writes: each bystander's bytes.
    static func cleanOutputs() async throws -> [String: Data] {
        let space = try workspace()
        let run = try await space.run(manifest: manifest, ["--no-cache"])
        #expect(run.status == 0, "\(run.result.stderr)")
        var outputs: [String: Data] = [:]
        for name in bystanders { outputs[name] = try Data(contentsOf: space.output(name)) }
        return outputs
    }

    // One combination at a time: sixteen runs at once, four of them allocating hundreds of
    // megabytes, slowed the rest of the suite on two cores past its bounds.
    @Test("A fault at any stage fails only the victim's rows, with the code, signal and stage",
          .serialized, arguments: ["segv", "abort", "hang", "alloc"], ["open", "decode", "render", "encode"])
    func faultFailsOnlyItsRows(fault: String, stage: String) async throws {
        let clean = try await Self.cleanOutputs()
        let space = try Self.workspace()
        // A hang must end at the deadline (2.5 s past it at most, on an idle machine; the bound
        // here allows for a loaded one); the other faults must end on their own, however
        // slowly a loaded machine lets a worker allocate its way past its limit.
        // Three seconds: the bystanders' stages in fresh workers must fit in it while the whole
        // suite runs beside them on two cores.
        let seconds = fault == "hang" ? 3 : 60
        let run = try await space.run(
            manifest: Self.manifest, ["--no-cache", "--timeout", "\(seconds)", "--max-memory", "256M"],
            environment: ["THUMBGEN_WORKER_FAULT": "victim.png:\(fault)@\(stage)"],
            timeout: .seconds(seconds + 60))
        #expect(run.status == 1, "\(run.result.stderr)")
        let report = try #require(run.report, "no report: \(run.result.stderr)")
        #expect(report.rows.count == 5 && report.summary.rows == 5)
        #expect(report.summary.written == 3 && report.summary.failed == 2)
        let gerund = ["open": "opening", "decode": "decoding", "render": "rendering", "encode": "encoding"][stage]!
        for line in [2, 4] {
            let row = try #require(report.row(line))
            let message = row.error?.message ?? ""
            #expect(row.status == "failed", "\(row)")
            #expect(message.hasPrefix("victim.png: "), "\(message)")
            switch fault {
            case "segv":
                #expect(row.error?.code == "crashed" && message.contains("SIGSEGV while \(gerund)"), "\(message)")
            case "abort":
                #expect(row.error?.code == "crashed" && message.contains("SIGABRT while \(gerund)"), "\(message)")
            case "hang":
                // The worker's own watch names its step (open, decode, render); the parent's
                // watchdog names the stage it last heard of.
                #expect(row.error?.code == "timeout" && message.contains("(--timeout)"), "\(message)")
            default:
                #expect(row.error?.code == "too_large" && message.contains("--max-memory")
                        && message.contains("while \(gerund)"), "\(message)")
            }
        }
        for name in Self.bystanders {
            #expect(try Data(contentsOf: space.output(name)) == clean[name], "\(name) differs from a clean run")
        }
        #expect(!space.outputFiles.contains { $0.hasPrefix("victim") }, "\(space.outputFiles)")
    }

    @Test("The in-process mode has no fault hook: --isolation none ignores the variable")
    func inProcessIgnoresTheInjector() async throws {
        let space = try Self.workspace()
        let run = try await space.run(manifest: Self.manifest, ["--no-cache", "--isolation", "none"],
                                      environment: ["THUMBGEN_WORKER_FAULT": "victim.png:segv@decode"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.summary.written == 5)
    }

    @Test("Isolated and in-process runs write the same bytes")
    func isolationChangesNoByte() async throws {
        let isolated = try Self.workspace(), inProcess = try Self.workspace()
        let first = try await isolated.run(manifest: Self.manifest, ["--no-cache"])
        let second = try await inProcess.run(manifest: Self.manifest, ["--no-cache", "--isolation", "none"])
        #expect(first.status == 0 && second.status == 0, "\(first.result.stderr)\(second.result.stderr)")
        #expect(isolated.outputFiles == inProcess.outputFiles)
        for name in isolated.outputFiles {
            #expect(try Data(contentsOf: isolated.output(name)) == Data(contentsOf: inProcess.output(name)), "\(name)")
        }
    }

    @Test("A decode estimated over the whole --max-memory budget fails too_large, naming the estimate")
    func overBudgetIsRefused() async throws {
        let space = try Self.workspace()
        try space.fixture(RawImage.quadrants(width: 1200, height: 1000), "large.png")
        let manifest = CSV.manifest(["src", "out", "size"], [["large.png", "large.jpg", "64"], ["good.png", "good.jpg", "48"]])
        // 1200 × 1000 × 3 bytes is 3.4 MiB, over a 1 MiB budget; the small one's 47 KiB fits.
        let run = try await space.run(manifest: manifest, ["--no-cache", "--max-memory", "1M"])
        let refused = run.report?.row(2)
        #expect(refused?.error?.code == "too_large", "\(String(describing: refused))")
        #expect(refused?.error?.message.contains("1200×1000 needs an estimated 3.4 MiB") == true,
                "\(String(describing: refused?.error?.message))")
        #expect(run.report?.row(3)?.status == "written")
    }

    @Test("Decodes that fit the budget one at a time, but not two at once, all get in and are written")
    func budgetAdmitsInTurn() async throws {
        let space = try Self.workspace()
        var rows: [[String]] = []
        for index in 0..<4 {
            try space.fixture(RawImage.quadrants(width: 1200, height: 1000), "large\(index).png")
            // Two rows each: their decode is shared, so it is held in memory whole.
            rows += [["large\(index).png", "a\(index).jpg", "64"], ["large\(index).png", "b\(index).jpg", "32"]]
        }
        // Each needs an estimated 3.4 MiB of a 5 MiB budget: with two workers, one waits.
        let run = try await space.run(manifest: CSV.manifest(["src", "out", "size"], rows),
                                      ["--no-cache", "--max-memory", "5M", "--jobs", "2"])
        #expect(run.status == 0, "\(run.result.stderr)")
        #expect(run.report?.summary.written == 8)
    }

    @Test("SIGTERM while a worker is stuck inside C: 143, the report whole, no worker left behind")
    func signalWhileStuck() async throws {
        let space = try Self.workspace()
        // A name no other test uses, so that this run's workers can be found by their
        // environment after it ends.
        let victim = "stuck-\(UUID().uuidString).png"
        try FileManager.default.copyItem(at: space.folder.file("victim.png"), to: space.folder.file(victim))
        let manifest = try space.folder.write(
            Self.manifest.replacingOccurrences(of: "victim.png", with: victim), to: "manifest.csv")
        let fault = "\(victim):hang@open"
        let runner = try CLIRunner([manifest.path, "--out", space.out.path, "--report", space.reportURL.path,
                                    "--no-cache", "--timeout", "120"],
                                   environment: ["THUMBGEN_WORKER_FAULT": fault])
        try runner.start()
        try await OffPool.run {
            let deadline = ContinuousClock.now + .seconds(60)
            while runner.isRunning && ContinuousClock.now < deadline
                    && !Set(Self.bystanders).isSubset(of: Set(space.outputFiles)) {
                usleep(10_000)
            }
        }
        try #require(runner.isRunning, "the run ended before the signal: \(runner.stderrText)")
        let sent = ContinuousClock.now
        runner.send(SIGTERM)
        let result = await runner.wait(timeout: .seconds(10))
        print("SIGTERM with a worker stuck in C: exited \(String(describing: result.status)) after \(ContinuousClock.now - sent)")
        #expect(result.status == 143, "\(result.stderr)")
        let report = try #require(try? Report.read(space.reportURL), "no report: \(result.stderr)")
        #expect(report.summary.rows == 5 && report.summary.written == 3 && report.summary.cancelled == 2,
                "\(report.summary)")
        // The parent kills its workers; one whose parent vanished would exit on its own.
        let survivors = Self.processes(withEnvironmentContaining: fault)
        #expect(survivors.isEmpty, "workers left running: \(survivors)")
    }

    @Test("A worker runs with no new privileges, a seccomp filter, no core files, a minimal environment, and none of the blocked loaders' libraries mapped")
    func workerHygiene() async throws {
        let space = try Self.workspace()
        let victim = "held-\(UUID().uuidString).png"
        try FileManager.default.copyItem(at: space.folder.file("victim.png"), to: space.folder.file(victim))
        let manifest = try space.folder.write(CSV.manifest(["src", "out"], [[victim, "held.png"]]), to: "manifest.csv")
        let fault = "\(victim):hang@decode"
        let runner = try CLIRunner([manifest.path, "--out", space.out.path, "--no-cache", "--timeout", "120"],
                                   environment: ["THUMBGEN_WORKER_FAULT": fault, "AWS_SECRET_ACCESS_KEY": "not-for-workers"])
        try runner.start()
        defer { runner.send(SIGKILL) }
        // A worker, found by the fault it was handed, once its hygiene is in place (after its
        // first unit), read whole in one pass: a worker found as it starts, or one the pool
        // retires, may be gone by the next read, so another is tried until one holds still.
        let snapshot = try await OffPool.run { () -> (status: String, limits: String, environ: Data, maps: String)? in
            let deadline = ContinuousClock.now + .seconds(90)
            while ContinuousClock.now < deadline {
                for pid in Self.processes(withEnvironmentContaining: fault) {
                    guard let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                          String(decoding: command, as: UTF8.self).contains("__worker"),
                          let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                          status.contains("Seccomp:\t2"),
                          let limits = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
                          let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"),
                          !environ.isEmpty,
                          let maps = FileHandle(forReadingAtPath: "/proc/\(pid)/maps").flatMap({ try? $0.readToEnd() })
                    else { continue }
                    return (status, limits, environ, String(decoding: maps, as: UTF8.self))
                }
                usleep(20_000)
            }
            return nil
        }
        // Found only with its seccomp filter on: none found fails here.
        let (status, limits, environ, maps) = try #require(snapshot, "no worker with its filter in place was found: \(runner.stderrText)")
        #expect(status.hasPrefix("Name:\tthumbgen-worker"), "\(status)")
        #expect(status.contains("NoNewPrivs:\t1"), "\(status)")
        #expect(limits.split(separator: "\n").contains { $0.hasPrefix("Max core file size") && $0.contains(" 0 ") },
                "\(limits)")
        let names = Set(String(decoding: environ, as: UTF8.self).split(separator: "\0").map { String($0.prefix { $0 != "=" }) })
        #expect(names.isSubset(of: ["TMPDIR", "LD_LIBRARY_PATH", "SWIFT_BACKTRACE", "LANG", "THUMBGEN_WORKER_FAULT"]),
                "\(names)")
        #expect(!names.contains("AWS_SECRET_ACCESS_KEY") && !names.contains("HOME"))
        // libvips' modules of blocked loaders are not even loaded (`VipsModules`).
        #expect(maps.contains("libvips.so"), "\(maps)")
        for library in ["vips-magick", "vips-poppler", "vips-openslide", "libMagickCore", "libpoppler", "libopenslide"] {
            #expect(!maps.contains(library), "\(library) is mapped")
        }
    }
}
