import Foundation
import Testing
import Thumbgen

/// `--prune` with no record of earlier runs for an `--out` that holds files (a new, emptied
/// or damaged cache; no `--out/.thumbgen-placed` without one), on the real binary: it can
/// prune nothing, and says so once, naming the folder (docs/command-line.md, "Pruning").
@Suite("End to end: --prune says when no record of earlier runs was found")
struct PruneRecordTests {
    /// How the record of the first run is lost.
    enum Loss: String, CaseIterable, Sendable {
        /// `: > cache/index.db`.
        case emptiedIndex
        /// `rm -r cache`.
        case deletedCache
        /// `--no-cache`, and `rm out/.thumbgen-placed`.
        case deletedRecordFile
    }

    /// The lines of `stderr` that say no record was found.
    static func noRecordLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.contains("no record of earlier runs was found") }
    }

    @Test("Record lost, a source deleted: --prune and --dry-run --prune prune nothing and say so once, naming --out",
          arguments: Loss.allCases)
    func recordLost(_ loss: Loss) async throws {
        let space = try Workspace("prune-record")
        try PruneTests.site(space)
        let flags = loss == .deletedRecordFile ? ["--no-cache"] : []
        #expect(try await PruneTests.render(space, flags).status == 0)
        let before = PruneTests.files(space)
        switch loss {
        case .emptiedIndex: try Data().write(to: space.cache.appendingPathComponent("index.db"))
        case .deletedCache: try FileManager.default.removeItem(at: space.cache)
        case .deletedRecordFile: try FileManager.default.removeItem(at: space.output(PlacedRecordFile.name))
        }
        try FileManager.default.removeItem(at: space.folder.file("src/sub/b.jpg"))

        let dry = try await PruneTests.render(space, flags + ["--dry-run", "--prune"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let dryLines = Self.noRecordLines(dry.stderr)
        #expect(dryLines.count == 1 && dryLines.first?.hasPrefix("thumbgen: --prune: nothing would be pruned: ") == true,
                "\(dry.stderr)")
        #expect(dryLines.first?.contains(" for \(space.out.path) ") == true, "\(dry.stderr)")
        #expect(dry.stderr.contains(", 0 to prune in"), "\(dry.stderr)")

        let run = try await PruneTests.render(space, flags + ["--prune"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = Self.noRecordLines(run.stderr)
        #expect(lines.count == 1 && lines.first?.hasPrefix("thumbgen: --prune: nothing could be pruned: ") == true,
                "\(run.stderr)")
        #expect(lines.first?.contains(" for \(space.out.path) ") == true, "\(run.stderr)")
        #expect(run.stderr.contains(", 0 pruned in"), "\(run.stderr)")
        #expect(PruneTests.files(space) == before, "b's outputs went without a record")

        // That run started a record: the next says nothing of it.
        let next = try await PruneTests.render(space, flags + ["--prune"])
        #expect(Self.noRecordLines(next.stderr).isEmpty && next.stderr.contains(", 0 pruned in"), "\(next.stderr)")
    }

    @Test("A first run with --prune into an absent or empty --out says nothing of a record", arguments: [false, true])
    func firstRunSaysNothing(noCache: Bool) async throws {
        let flags = noCache ? ["--no-cache"] : []
        for makeOut in [false, true] {
            let space = try Workspace("prune-record")
            try PruneTests.site(space)
            if makeOut { try FileManager.default.createDirectory(at: space.out, withIntermediateDirectories: true) }
            let dry = try await PruneTests.render(space, flags + ["--dry-run", "--prune"])
            #expect(dry.status == 0 && Self.noRecordLines(dry.stderr).isEmpty, "\(dry.stderr)")
            let run = try await PruneTests.render(space, flags + ["--prune"])
            #expect(run.status == 0 && Self.noRecordLines(run.stderr).isEmpty, "\(run.stderr)")
            #expect(run.stderr.contains(", 0 pruned in"), "\(run.stderr)")
        }
    }
}
