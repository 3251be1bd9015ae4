import Foundation
import Testing
import Thumbgen

/// `--dry-run --prune` against the run that follows it, on the real binary: when an output
/// moves (another source takes its path, its row's `out` changes, a size changes its name),
/// what the dry run lists, in its report and one `would prune` line each on standard error,
/// is what the run then removes, and never more (docs/command-line.md, "Pruning").
@Suite("End to end: --dry-run --prune lists what --prune then removes")
struct PruneDryRunTests {
    /// What a dry run listed (its report's `pruned`; its `would prune` lines) and what the run
    /// after it removed (that run's report's `pruned`).
    struct Lists {
        var listed: [String]
        var lines: [String]
        var removed: [String]
    }

    /// `src/a.jpg` (320×200) and `src/b.jpg` (300×200), next to the manifest.
    static func sources(_ space: Workspace) throws {
        try space.fixture(.quadrants(width: 320, height: 200), "src/a.jpg", as: .jpeg)
        try space.fixture(.quadrants(width: 300, height: 200), "src/b.jpg", as: .jpeg)
    }

    /// The paths of a dry run's `thumbgen: would prune PATH` lines, in order.
    static func wouldPrune(_ stderr: String) -> [String] {
        let head = "thumbgen: would prune "
        return stderr.split(separator: "\n").filter { $0.hasPrefix(head) }.map { String($0.dropFirst(head.count)) }
    }

    /// Runs `manifest` with `--dry-run --prune`, then with `--prune` (both with `arguments`),
    /// and checks that the dry run touched nothing under `--out`.
    static func dryThenRun(_ space: Workspace, _ manifest: String, _ arguments: [String],
                           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Lists {
        let before = PruneTests.files(space)
        let dry = try await space.run(manifest: manifest, ["--dry-run", "--prune"] + arguments)
        #expect(dry.status == 0, "\(dry.result.stderr)", sourceLocation: sourceLocation)
        let listed = try PruneTests.pruned(space.reportURL)
        #expect(PruneTests.files(space) == before, "the dry run touched --out", sourceLocation: sourceLocation)
        let run = try await space.run(manifest: manifest, ["--prune"] + arguments)
        #expect(run.status == 0, "\(run.result.stderr)", sourceLocation: sourceLocation)
        return Lists(listed: listed, lines: wouldPrune(dry.result.stderr), removed: try PruneTests.pruned(space.reportURL))
    }

    @Test("The hero image swapped (a fixed out path moves to another source): the dry run lists nothing, the run removes nothing and rewrites it",
          arguments: [false, true])
    func heroSwap(noCache: Bool) async throws {
        let space = try Workspace("prune-dry")
        try Self.sources(space)
        let flags = noCache ? ["--no-cache"] : []
        #expect(try await space.run(manifest: "src,out\nsrc/a.jpg,hero.jpg\n", flags).status == 0)
        let first = try Data(contentsOf: space.output("hero.jpg"))
        let lists = try await Self.dryThenRun(space, "src,out\nsrc/b.jpg,hero.jpg\n", flags)
        #expect(lists.listed == [] && lists.lines == [] && lists.removed == [], "\(lists)")
        #expect(PruneTests.files(space) == ["hero.jpg"])
        #expect(try Data(contentsOf: space.output("hero.jpg")) != first, "hero.jpg is still a's")
    }

    @Test("A row's out changes: the dry run lists its old path as the run removes it when the cache names the new one; without a cache, none of the source's, fewer than the run",
          arguments: [false, true], [("a.jpg", "thumbs/a.jpg"), ("{name}-{w}x{h}.jpg", "thumbs/{name}-{w}x{h}.jpg")])
    func outChanged(noCache: Bool, templates: (String, String)) async throws {
        let space = try Workspace("prune-dry")
        try Self.sources(space)
        let flags = noCache ? ["--no-cache"] : []
        let manifest = { (out: String) in "src,out,size\nsrc/a.jpg,\(out),64x64\nsrc/b.jpg,b-{w}.jpg,64x64\n" }
        #expect(try await space.run(manifest: manifest(templates.0), flags).status == 0)
        let old = PruneTests.files(space).filter { $0.hasPrefix("a") }
        #expect(old.count == 1, "\(PruneTests.files(space))")
        let lists = try await Self.dryThenRun(space, manifest(templates.1), flags)
        #expect(lists.removed == old, "\(lists)")
        // Without a cache a's row needs a render, which could fail and keep a's files: they stay off the list.
        #expect(lists.listed == (noCache ? [] : old) && lists.lines == lists.listed, "\(lists)")
        #expect(PruneTests.files(space).filter { $0.hasPrefix("a") } == [], "\(PruneTests.files(space))")
    }

    @Test("A size changes its name: back to a size the cache holds, the dry run lists the other size's files as the run removes them; to one only a render can name, it lists none of the source's, fewer than the run",
          arguments: [false, true])
    func sizeChanged(noCache: Bool) async throws {
        let space = try Workspace("prune-dry")
        try Self.sources(space)
        let flags = noCache ? ["--no-cache"] : []
        let manifest = { (size: Int) in "src,out,size\nsrc/a.jpg,{name}-{w}x{h}.jpg,\(size)\n" }
        #expect(try await space.run(manifest: manifest(64), flags).status == 0)
        #expect(try await space.run(manifest: manifest(48), flags).status == 0)
        #expect(PruneTests.files(space) == ["a-48x30.jpg", "a-64x40.jpg"], "\(PruneTests.files(space))")
        let back = try await Self.dryThenRun(space, manifest(64), flags)
        #expect(back.removed == ["a-48x30.jpg"], "\(back)")
        // Without a cache the new name needs a render: the source's files stay off the list.
        #expect(back.listed == (noCache ? [] : back.removed) && back.lines == back.listed, "\(back)")
        let fresh = try await Self.dryThenRun(space, manifest(32), flags)
        #expect(fresh.removed == ["a-64x40.jpg"] && fresh.listed == [] && fresh.lines == [], "\(fresh)")
        #expect(PruneTests.files(space) == ["a-32x20.jpg"])
    }

    @Test("A dry run names each file it would prune on standard error, without -v; --quiet says nothing")
    func namesEachFile() async throws {
        let space = try Workspace("prune-dry")
        try PruneTests.site(space)
        #expect(try await PruneTests.render(space).status == 0)
        try FileManager.default.removeItem(at: space.folder.file("src/sub/b.jpg"))
        let dry = try await PruneTests.render(space, ["--dry-run", "--prune"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(Self.wouldPrune(dry.stderr) == ["sub/b-64x43.jpg", "sub/b-64x43.webp"], "\(dry.stderr)")
        let quiet = try await PruneTests.render(space, ["--dry-run", "--prune", "--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        // A run removes them; it names none of them this way.
        let run = try await PruneTests.render(space, ["--prune"])
        #expect(run.stderr.contains(", 2 pruned in") && Self.wouldPrune(run.stderr).isEmpty, "\(run.stderr)")
    }
}
