import Foundation
import Testing
import Thumbgen

/// `--dry-run --prune` against the run that follows it, on the real binary: when an output
/// moves (another source takes its path, its row's `out` changes, a size changes its name),
/// what the dry run lists, in its report and one `would prune` line each on standard error,
/// is what the run then removes, and never more (docs/command-line.md, "Pruning").
@Suite("End to end: --dry-run --prune lists what --prune then removes")
struct PruneDryRunTests {
    /// The paths of a dry run's `thumbgen: would prune PATH` lines, in order.
    static func wouldPrune(_ stderr: String) -> [String] {
        let head = "thumbgen: would prune "
        return stderr.split(separator: "\n").filter { $0.hasPrefix(head) }.map { String($0.dropFirst(head.count)) }
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
