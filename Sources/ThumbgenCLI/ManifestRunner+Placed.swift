import Foundation
import Thumbgen

extension ManifestRunner {
    /// Ends the record of placed files under `--out` (in the cache's database, or in
    /// `--out/.thumbgen-placed` without a cache) and runs `--prune`. The files pruned (nil
    /// without `--prune`), and the lines standard error should show: what a dry run would
    /// prune, what a prune left and why it did not run (none with `--quiet`).
    func finishPlaced(_ configuration: PipelineConfiguration, ledger: PlacedLedger?, made: MadeFolders,
                      dryRun: Bool, incomplete: String?) -> (pruned: [PlacedFile]?, lines: [String]) {
        guard let ledger, let out = configuration.outputDirectory else { return (nil, []) }
        let store: any PlacedRecordStoring = configuration.cache.map { PlacedIndex(cache: $0, outputDirectory: out) }
            ?? PlacedRecordFile(outputDirectory: out)
        let outcome = OutputPruner(outputDirectory: out, store: store, shard: shard)
            .finish(ledger, made: made.paths, prune: prune, dryRun: dryRun, incomplete: incomplete)
        return (prune ? outcome.pruned : nil, quiet ? [] : Self.lines(outcome, dryRun: dryRun))
    }

    /// Why the run's rows do not decide every output under `--out`, so that `--prune` must not
    /// run (nil: they do).
    func incompleteness(manifestError: ManifestError?, signal: Int32?) -> String? {
        if signal != nil { return "the run was interrupted" }
        if manifestError != nil { return "the manifest could not be read to its end" }
        if case .tree(let tree, _) = input, !tree.problems.isEmpty { return "the walk could not read every path" }
        return nil
    }

    /// What a dry run would prune, a file a line (as `rsync -n --delete` does), then the
    /// warnings of `outcome`, each once.
    static func lines(_ outcome: PruneOutcome, dryRun: Bool) -> [String] {
        // TerminalText at merge: each path below (`file.path`, the changed files, a refused
        // path) is a value from the file system or the manifest.
        var lines = dryRun ? outcome.pruned.map { "would prune " + $0.path } : []
        if let skipped = outcome.skipped { lines.append("--prune: " + skipped) }
        if !outcome.changed.isEmpty {
            let count = outcome.changed.count
            lines.append("--prune \(dryRun ? "would leave" : "left") \(count) \(count == 1 ? "file" : "files") "
                + "that changed since thumbgen placed \(count == 1 ? "it" : "them") (no longer on record as "
                + "thumbgen's): " + outcome.changed.map(\.path).joined(separator: ", "))
        }
        for (path, reason) in outcome.refused { lines.append("--prune: \(path): cannot remove: \(reason)") }
        if outcome.unsaved {
            lines.append("the record of the files placed under --out could not be saved: a later --prune "
                + "will not remove this run's outputs")
        }
        return lines
    }
}
