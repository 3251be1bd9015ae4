import Foundation
import Thumbgen

extension ManifestRunner {
    /// Ends the record of placed files under `--out` (in the cache's database, or in
    /// `--out/.thumbgen-placed` without a cache) and runs `--prune`; `heldFiles` says whether
    /// `--out` held files before the run. The files pruned (nil without `--prune`), and the
    /// lines standard error should show: what a dry run would prune, what a prune left and
    /// why it did not run (none with `--quiet`).
    func finishPlaced(_ configuration: PipelineConfiguration, ledger: PlacedLedger?, made: MadeFolders,
                      dryRun: Bool, heldFiles: Bool, incomplete: String?) -> (pruned: [PlacedFile]?, lines: [String]) {
        guard let ledger, let out = configuration.outputDirectory else { return (nil, []) }
        let store: any PlacedRecordStoring
        if recipe.cache.noCache {
            store = PlacedRecordFile(outputDirectory: out)
        } else if let cache = configuration.cache {
            store = PlacedIndex(cache: cache, outputDirectory: out)
        } else {
            // A dry run before the cache exists: there is no record yet.
            store = NoPlacedRecord()
        }
        let outcome = OutputPruner(outputDirectory: out, store: store, shard: shard)
            .finish(ledger, made: made.paths, prune: prune, dryRun: dryRun, incomplete: incomplete,
                    heldFiles: heldFiles)
        let lines = quiet ? [] : Self.lines(outcome, dryRun: dryRun, out: out, cached: !recipe.cache.noCache)
        return (prune ? outcome.pruned : nil, lines)
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
    /// warnings of `outcome`, each once; `out` is the `--out` folder, `cached` whether its
    /// record is in the cache.
    static func lines(_ outcome: PruneOutcome, dryRun: Bool, out: URL, cached: Bool) -> [String] {
        // The paths below come from the file system and the manifest: the caller prints each
        // line with `printError`, which makes it safe for a terminal.
        var lines = dryRun ? outcome.pruned.map { "would prune " + $0.path } : []
        if let skipped = outcome.skipped { lines.append("--prune: " + skipped) }
        if outcome.unrecorded {
            lines.append("--prune: nothing \(dryRun ? "would be" : "could be") pruned: no record of earlier runs "
                + "was found for \(out.path) "
                + (cached ? "in the cache (new, emptied or damaged)" : "(no readable \(PlacedRecordFile.name) in it)")
                + "; files they placed there stay until removed by hand")
        }
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

/// The record of a folder no cache holds yet (a dry run before any run made the cache): none.
private struct NoPlacedRecord: PlacedRecordStoring {
    func hasRecord() -> Bool { false }
    func holds(fingerprint: UInt64) -> Bool { false }
    func load() -> PlacedRecord { PlacedRecord() }
    func save(_ changes: PlacedChanges, to previous: PlacedRecord, fingerprint: UInt64) -> Bool { false }
}
