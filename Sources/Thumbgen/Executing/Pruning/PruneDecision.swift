import Foundation

/// Which files on record a prune removes: the one decision `--prune` and `--dry-run --prune`
/// share (`OutputPruner`), so that what a dry run lists is what a run from the same facts
/// removes. A run then unlinks `removals`; a dry run lists them.
///
/// A file on record goes when no row of the run produced its path, no row that may still
/// produce it could (a dry run's row whose path only a render can tell: its `OutputPathPattern`),
/// its source's fate is decided (no row of it failed, or left its path untold), it is in the
/// run's shard, and it is still the file thumbgen placed (size and SHA-256).
struct PruneDecision {
    /// A file to remove and its full path under the folder's real path.
    struct Removal {
        /// The file as on record.
        var file: PlacedFile
        /// Its path on disk, confined to the folder.
        var path: String
    }

    /// The files to remove, in path order: unchanged since thumbgen placed them.
    private(set) var removals: [Removal] = []
    /// Files that changed since (the user's now): left, and off the record.
    private(set) var changed: [PlacedFile] = []
    /// Paths that leave the record, untouched: gone already, no longer a file, or leading out
    /// of the folder.
    private(set) var forgotten: [String] = []

    /// Decides for the record `previous` of the folder whose real path is `root`: `produced`
    /// are the paths the run's rows gave, `unnamed` the paths its rows of untold paths may
    /// take, `undecided` the identities of sources whose files stay whatever their paths.
    init(previous: PlacedRecord, produced: Set<String>, unnamed: OutputPathPatterns,
         undecided: Set<String>, shard: Shard?, root: String) {
        let candidates = previous.files.values
            .filter { file in
                !produced.contains(file.path) && !undecided.contains(file.source)
                    && shard?.owns(identity: file.source) != false && !unnamed.mayProduce(file.path)
            }
            .sorted { $0.path < $1.path }
        for file in candidates {
            guard let path = OutputPruner.confined(file.path, under: root) else {
                forgotten.append(file.path)
                continue
            }
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                // Gone already, or replaced by something else: nothing of ours to remove.
                forgotten.append(file.path)
                continue
            }
            guard Int(info.st_size) == file.bytes, ContentDigest.ofFile(at: path) == file.sha256 else {
                changed.append(file)
                continue
            }
            removals.append(Removal(file: file, path: path))
        }
    }
}
