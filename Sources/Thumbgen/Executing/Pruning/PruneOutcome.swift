/// What the end of a run did with the record of placed files, and what `--prune` removed.
public struct PruneOutcome: Sendable, Equatable {
    /// Files removed (with `--dry-run`, to be removed), by path.
    public var pruned: [PlacedFile] = []
    /// Files a prune would have removed but left: their size or digest changed since thumbgen
    /// placed them, so they are the user's now (and leave the record).
    public var changed: [PlacedFile] = []
    /// Empty folders thumbgen had made that were removed with them, deepest first.
    public var folders: [String] = []
    /// Files that could not be removed, with the reason.
    public var refused: [(path: String, reason: String)] = []
    /// Why nothing was pruned although `--prune` asked (nil: the prune ran, or was not asked).
    public var skipped: String?
    /// Whether the record could not be saved (the next prune may miss this run's files).
    public var unsaved = false
    /// Whether `--prune` found no record of earlier runs for a folder that held files: what
    /// they placed there, if anything, could not be pruned.
    public var unrecorded = false

    /// Equal when they name the same files and folders and say the same (refusals by path).
    public static func == (lhs: PruneOutcome, rhs: PruneOutcome) -> Bool {
        lhs.pruned == rhs.pruned && lhs.changed == rhs.changed && lhs.folders == rhs.folders
            && lhs.refused.map(\.path) == rhs.refused.map(\.path) && lhs.skipped == rhs.skipped
            && lhs.unsaved == rhs.unsaved && lhs.unrecorded == rhs.unrecorded
    }
}
