import Foundation
import Testing

/// The recipes in `examples/sharding/`, run as their engines would run them: N local processes
/// with the environment the engine sets, the command lines read from the recipe files (so that
/// a recipe that drifts fails here), then their reports merged and compared with one process's.
@Suite("Sharding recipes: a Kubernetes Indexed Job, a GitHub Actions matrix, a Slurm array")
struct ShardRecipesTests {
    static let recipes = TestPaths.packageRoot.appendingPathComponent("examples/sharding")

    /// The recipe `name`'s text.
    static func recipe(_ name: String) throws -> String {
        try String(contentsOf: recipes.appendingPathComponent(name), encoding: .utf8)
    }

    /// The first capture of `pattern` (anchored per line) in `text`.
    static func capture(_ pattern: String, in text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> String {
        let regex = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        let match = try #require(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                                 "no \(pattern)", sourceLocation: sourceLocation)
        return String(text[try #require(Range(match.range(at: 1), in: text))])
    }

    /// A site (manifest.csv and img/) in `folder`, and the report and tree one process makes of it.
    static func reference(in space: Workspace) throws -> String {
        try ShardHarness.manifest(in: space, sources: 12, sizes: [16, 24, 40], extra: [["img/none.png", "16", "t/none.png"]])
    }

    /// Runs each of `commands` with bash (`-c`), at once, in its folder, with the environment
    /// given and `thumbgen` first on PATH; waits for all and returns their exit statuses.
    static func shells(_ commands: [(arguments: [String], folder: URL, environment: [String: String])])
        async throws -> [(status: Int32, stderr: String)]
    {
        let binary = try #require(TestPaths.thumbgen).deletingLastPathComponent().path
        var running: [(Process, URL)] = []
        for (index, command) in commands.enumerated() {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = command.arguments
            process.currentDirectoryURL = command.folder
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = binary + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment.merge(command.environment) { $1 }
            process.environment = environment
            let errors = command.folder.appendingPathComponent("stderr-\(index).txt")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            running.append((process, errors))
        }
        let deadline = ContinuousClock.now + .seconds(300)
        var results: [(Int32, String)] = []
        for (process, errors) in running {
            while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            results.append((process.terminationStatus, (try? String(contentsOf: errors, encoding: .utf8)) ?? ""))
        }
        return results
    }

    /// The merged report at `merged` and the tree at `tree` are one process's, up to timings.
    /// `folders` are where the shards had the manifest, when not where the single run has it.
    static func expectSameAsOneProcess(space: Workspace, merged: URL, tree: URL, rows: Int, folders: [String] = [],
                                       sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let single = try await CLIRunner.run([space.folder.file("manifest.csv").path, "--out", space.out.path,
                                              "--report", space.reportURL.path], cacheDirectory: space.cache)
        #expect(single.status == 1, "\(single.stderr)", sourceLocation: sourceLocation)  // img/none.png
        #expect(try ShardHarness.rows(merged, folders: folders + [space.folder.url.path])
                    == ShardHarness.rows(space.reportURL, folders: [space.folder.url.path]), sourceLocation: sourceLocation)
        #expect(try ShardHarness.summary(merged) == ShardHarness.summary(space.reportURL), sourceLocation: sourceLocation)
        #expect(try Report.read(merged).rows.count == rows, sourceLocation: sourceLocation)
        #expect(try CacheFiles.tree(tree) == CacheFiles.tree(space.out), "the shards' tree differs",
                sourceLocation: sourceLocation)
    }

    @Test("Kubernetes Indexed Job: completions = parallelism = N pods with JOB_COMPLETION_INDEX, then the merge")
    func kubernetes() async throws {
        let yaml = try Self.recipe("kubernetes-indexed-job.yaml")
        #expect(try Self.capture(#"^\s*completionMode:\s*(\w+)"#, in: yaml) == "Indexed")
        let count = try #require(Int(try Self.capture(#"^\s*completions:\s*(\d+)"#, in: yaml)))
        #expect(try Self.capture(#"^\s*parallelism:\s*(\d+)"#, in: yaml) == String(count))
        let args = try #require(try JSONSerialization.jsonObject(
            with: Data(try Self.capture(#"^\s*args:\s*(\[.*\])\s*$"#, in: yaml).utf8)) as? [String])
        #expect(args.contains("auto/\(count)"))
        #expect(yaml.contains("secretKeyRef"))  // the remote cache's credentials come from a Secret

        let space = try Workspace("recipe-k8s")
        try space.folder.write(try Self.reference(in: space), to: "manifest.csv")
        let data = space.folder.url.path
        let runs = try await ShardHarness.runAll(count, in: space, environment: { ["JOB_COMPLETION_INDEX": String($0)] }) { k in
            args.map { $0.replacingOccurrences(of: "$(JOB_COMPLETION_INDEX)", with: String(k))
                .replacingOccurrences(of: "/data", with: data) }
        }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        let merge = try Self.capture(#"^#\s*(thumbgen report merge .*)$"#, in: yaml).replacingOccurrences(of: "/data", with: data)
        let merged = try await Self.shells([(["-c", merge], space.folder.url, [:])])
        #expect(merged.first?.status == 0, "\(merged)")
        try await Self.expectSameAsOneProcess(space: space, merged: space.folder.file("report.json"),
                                              tree: space.folder.file("out"), rows: 37)
    }

    @Test("GitHub Actions: a matrix of SHARDS jobs on runners of their own, artifacts downloaded together, then the merge")
    func githubActions() async throws {
        let workflow = try Self.recipe("github-actions.yml")
        let count = try #require(Int(try Self.capture(#"^\s*SHARDS:\s*(\d+)"#, in: workflow)))
        let matrix = try Self.capture(#"^\s*shard:\s*\[([0-9, ]*)\]"#, in: workflow)
            .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(matrix == Array(0..<count))
        let render = try Self.capture(#"^\s*run:\s*(thumbgen render .*)$"#, in: workflow)
        let merge = try Self.capture(#"^\s*run:\s*(thumbgen report merge .*)$"#, in: workflow)
        #expect(render.contains("--shard ${{ matrix.shard }}/${{ env.SHARDS }}"))

        let space = try Workspace("recipe-gha")
        let manifest = try Self.reference(in: space)
        try space.folder.write(manifest, to: "manifest.csv")
        // Each runner checks the repository out afresh: the site under site/, its own caches.
        var commands: [(arguments: [String], folder: URL, environment: [String: String])] = []
        for k in matrix {
            let runner = space.folder.file("runner-\(k)")
            try FileManager.default.createDirectory(at: runner.appendingPathComponent("site"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: space.folder.file("img"), to: runner.appendingPathComponent("site/img"))
            try Data(manifest.utf8).write(to: runner.appendingPathComponent("site/manifest.csv"))
            let line = render.replacingOccurrences(of: "${{ matrix.shard }}", with: String(k))
                .replacingOccurrences(of: "${{ env.SHARDS }}", with: String(count))
            commands.append((["-c", line], runner, ["THUMBGEN_CACHE_DIR": runner.appendingPathComponent("cache").path]))
        }
        let runs = try await Self.shells(commands)
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs)")
        // download-artifact with merge-multiple: every runner's thumbs/ and report in one folder.
        let merging = space.folder.file("merge")
        try FileManager.default.createDirectory(at: merging.appendingPathComponent("thumbs"), withIntermediateDirectories: true)
        for k in matrix {
            let runner = space.folder.file("runner-\(k)")
            for file in TemporaryDirectory.files(under: runner.appendingPathComponent("thumbs")) {
                let target = merging.appendingPathComponent("thumbs/" + file)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: runner.appendingPathComponent("thumbs/" + file), to: target)
            }
            try FileManager.default.copyItem(at: runner.appendingPathComponent("report-\(k).json"),
                                             to: merging.appendingPathComponent("report-\(k).json"))
        }
        let merged = try await Self.shells([(["-c", merge], merging, [:])])
        #expect(merged.first?.status == 0, "\(merged)")
        #expect(FileManager.default.fileExists(atPath: merging.appendingPathComponent("sheet.html").path))
        try await Self.expectSameAsOneProcess(space: space, merged: merging.appendingPathComponent("report.json"),
                                              tree: merging.appendingPathComponent("thumbs"), rows: 37,
                                              folders: matrix.map { space.folder.file("runner-\($0)/site").path })
    }

    @Test("Slurm: the script run once per task of its --array, with Slurm's SLURM_ARRAY_TASK_* variables, then the merge")
    func slurm() async throws {
        let script = try Self.recipe("slurm-array.sh")
        let low = try #require(Int(try Self.capture(#"^#SBATCH --array=(\d+)-\d+\s*$"#, in: script)))
        let high = try #require(Int(try Self.capture(#"^#SBATCH --array=\d+-(\d+)\s*$"#, in: script)))
        let merge = try Self.capture(#"^#.*'(thumbgen report merge [^']*)'"#, in: script)

        let space = try Workspace("recipe-slurm")
        try space.folder.write(try Self.reference(in: space), to: "manifest.csv")
        let scriptPath = Self.recipes.appendingPathComponent("slurm-array.sh").path
        let runs = try await Self.shells((low...high).map { id in
            ([scriptPath], space.folder.url, [
                "SLURM_ARRAY_JOB_ID": "1234", "SLURM_ARRAY_TASK_ID": String(id), "SLURM_ARRAY_TASK_MIN": String(low),
                "SLURM_ARRAY_TASK_MAX": String(high), "SLURM_ARRAY_TASK_COUNT": String(high - low + 1),
                "SLURM_ARRAY_TASK_STEP": "1", "SLURM_CPUS_PER_TASK": "1",
                "THUMBGEN_CACHE_DIR": space.folder.file("cache-\(id)").path,
            ])
        })
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs)")
        let merged = try await Self.shells([(["-c", merge], space.folder.url, [:])])
        #expect(merged.first?.status == 0, "\(merged)")
        try await Self.expectSameAsOneProcess(space: space, merged: space.folder.file("report.json"),
                                              tree: space.folder.file("thumbs"), rows: 37)
    }
}
