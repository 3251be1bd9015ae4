import Foundation
import Thumbgen

extension ManifestRunner {
    /// Ends the record of placed files under `--out` (in the cache's database, or in
    /// `--out/.thumbgen-placed` without a cache) and runs `--prune`; says on standard error
    /// what a prune left and why it did not run. The files pruned (nil without `--prune`).
    func finishPlaced(_ configuration: PipelineConfiguration, ledger: PlacedLedger?, made: MadeFolders,
                      dryRun: Bool, progress: ProgressDisplay, incomplete: String?) -> [PlacedFile]? {
        guard let ledger, let out = configuration.outputDirectory else { return nil }
        let store: any PlacedRecordStoring = configuration.cache.map { PlacedIndex(cache: $0, outputDirectory: out) }
            ?? PlacedRecordFile(outputDirectory: out)
        let outcome = OutputPruner(outputDirectory: out, store: store, shard: shard)
            .finish(ledger, made: made.paths, prune: prune, dryRun: dryRun, incomplete: incomplete)
        for line in Self.lines(outcome, dryRun: dryRun) where !quiet { progress.print("thumbgen: " + line) }
        return prune ? outcome.pruned : nil
    }

    /// Why the run's rows do not decide every output under `--out`, so that `--prune` must not
    /// run (nil: they do).
    func incompleteness(manifestError: ManifestError?, signal: Int32?) -> String? {
        if signal != nil { return "the run was interrupted" }
        if manifestError != nil { return "the manifest could not be read to its end" }
        if case .tree(let tree, _) = input, !tree.problems.isEmpty { return "the walk could not read every path" }
        return nil
    }

    /// The warnings of `outcome`, each once.
    static func lines(_ outcome: PruneOutcome, dryRun: Bool) -> [String] {
        var lines: [String] = []
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
