import Foundation

/// Ends a run that wrote under `--out`: adds what it placed to the folder's record of placed
/// files and, with `--prune`, removes the files an earlier run placed that no row of this run
/// produced, and nothing else:
///
/// - a file not on record (the user's) is never looked at;
/// - a file on record whose size or SHA-256 changed since is left, named, and forgotten (it is
///   the user's now);
/// - a file of a source whose row failed this run is kept (what that row would make is
///   undecided; so, in a dry run, is one of a row whose output path only a render can tell,
///   and any file of whatever source such a row may write: its `OutputPathPattern` matches);
///   so is every file while the run is incomplete (cancelled, or a walk that could not read
///   everything): nothing is pruned then;
/// - with no record for the folder (a new, emptied or damaged cache; no `.thumbgen-placed`),
///   nothing is pruned, and the outcome says so when the folder held files (`unrecorded`);
/// - with `--shard`, only files whose source is in this shard (`Shard.owns(identity:)`), so
///   shards over one `--out` never remove each other's files;
/// - empty folders go only when thumbgen made them and a removal emptied them.
///
/// Which files go is decided in one place, `PruneDecision`, for a run and a dry run alike.
public struct OutputPruner: Sendable {
    /// The `--out` folder.
    public let outputDirectory: URL
    /// Where its record lives.
    public let store: any PlacedRecordStoring
    /// The run's shard (nil: the whole manifest).
    public let shard: Shard?

    /// A pruner for `outputDirectory`, whose record is in `store`.
    public init(outputDirectory: URL, store: any PlacedRecordStoring, shard: Shard? = nil) {
        self.outputDirectory = outputDirectory
        self.store = store
        self.shard = shard
    }

    /// Records what `ledger` saw placed (and the folders `made`) and, when `prune`, prunes;
    /// `dryRun` only lists and saves nothing; `incomplete` says why the run's rows do not
    /// decide every output (nil: they do); `heldFiles`, whether the folder held files before
    /// the run (`holdsFiles(in:)`): with no record to go by, the outcome then says so.
    public func finish(_ ledger: PlacedLedger, made: Set<String>, prune: Bool, dryRun: Bool,
                       incomplete: String?, heldFiles: Bool = false) -> PruneOutcome {
        let run = ledger.snapshot
        let fingerprint = PlacedLedger.fingerprint(run)
        var outcome = PruneOutcome()
        let skip = incomplete ?? (run.cancelled ? "rows were cancelled" : nil)
        let prunes = prune && skip == nil
        if prune { outcome.skipped = skip.map { "nothing pruned: \($0)" } }
        // Asked before the record is saved: this run's own saving would make one.
        if prunes && heldFiles && !store.hasRecord() { outcome.unrecorded = true }
        // The warm path: a run like one already saved, pruning nothing, reads and writes nothing.
        if !prunes && (dryRun || (made.isEmpty && store.holds(fingerprint: fingerprint))) { return outcome }

        let previous = store.load()
        var changes = PlacedChanges()
        var produced = Set<String>()
        // Runs of consecutive rows share a source: its identity is made once for them.
        var last: (src: String, identity: String)?
        ledger.forEachEntry { entry in
            if prunes { produced.insert(entry.path) }
            guard !dryRun else { return }
            let known = previous.files[entry.path]
            let identity = last.flatMap { $0.src == entry.src ? $0.identity : nil } ?? SourceIdentity.of(src: entry.src)
            last = (entry.src, identity)
            let file = PlacedFile(path: entry.path, row: entry.row, source: identity, bytes: entry.bytes,
                                  sha256: entry.sha256)
            guard file != known else { return }
            changes.replaces = changes.replaces || known != nil
            changes.upserts.append(file)
        }
        if !dryRun { changes.foldersMade = made.subtracting(previous.folders) }
        if prunes {
            removeUnproduced(previous: previous, produced: produced, run: run, dryRun: dryRun,
                             into: &outcome, changes: &changes)
        }
        if !dryRun && !store.save(changes, to: previous, fingerprint: fingerprint) { outcome.unsaved = true }
        return outcome
    }

    /// Removes (or, in a dry run, lists) the files on record that this run did not produce, in
    /// its shard, as `PruneDecision` decides: the run and the dry run differ only in the unlink.
    private func removeUnproduced(previous: PlacedRecord, produced: Set<String>, run: PlacedLedger.State,
                                  dryRun: Bool, into outcome: inout PruneOutcome, changes: inout PlacedChanges) {
        guard !previous.files.isEmpty, let root = realpath(outputDirectory.path, nil) else { return }
        let rootPath = String(cString: root)
        free(root)
        let undecided = Set((run.failedSources + run.unnamedSources).map { SourceIdentity.of(src: $0) })
        let decision = PruneDecision(previous: previous, produced: produced, unnamed: run.unnamedPaths,
                                     undecided: undecided, shard: shard, root: rootPath)
        outcome.changed = decision.changed
        changes.removals += decision.forgotten + decision.changed.map(\.path)
        if dryRun {
            outcome.pruned = decision.removals.map(\.file)
            return
        }
        var emptied = Set<String>()
        for removal in decision.removals {
            guard unlink(removal.path) == 0 else {
                outcome.refused.append((removal.file.path, String(cString: strerror(errno))))
                continue
            }
            outcome.pruned.append(removal.file)
            changes.removals.append(removal.file.path)
            // Every folder on its way, `a/b` and `a` for `a/b/c.jpg`.
            var folders = removal.file.path.split(separator: "/").dropLast()
            while !folders.isEmpty {
                emptied.insert(folders.joined(separator: "/"))
                folders.removeLast()
            }
        }
        // Deepest first, so that a parent is tried once its children are gone; rmdir removes
        // only an empty folder, so one holding anything (a user's file) stays.
        let folders = previous.folders.union(changes.foldersMade)
        for folder in emptied.sorted(by: { $0.split(separator: "/").count > $1.split(separator: "/").count })
        where folders.contains(folder) {
            if rmdir(rootPath + "/" + folder) == 0 {
                outcome.folders.append(folder)
                changes.foldersGone.insert(folder)
            } else if errno == ENOENT {
                changes.foldersGone.insert(folder)
            }
        }
        changes.foldersMade.subtract(changes.foldersGone)
        changes.replaces = changes.replaces || !changes.removals.isEmpty
    }

    /// The full path of `relative` under `root`, or nil when it could lead elsewhere (an absolute
    /// path, a `..`, or a folder on the way that is a link out of `root`).
    static func confined(_ relative: String, under root: String) -> String? {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.hasPrefix("/"), !parts.contains(where: { $0 == ".." || $0.isEmpty }) else { return nil }
        guard let name = parts.last else { return nil }
        let folder = ([Substring(root)] + parts.dropLast()).joined(separator: "/")
        guard let real = realpath(folder, nil) else { return nil }
        defer { free(real) }
        let resolved = String(cString: real)
        return resolved == root || resolved.hasPrefix(root + "/") ? resolved + "/" + name : nil
    }
}
