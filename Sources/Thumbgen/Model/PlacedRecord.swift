/// What thumbgen placed under one `--out` folder over its runs: the files (by path) and the
/// folders it made for them. `--prune` removes only what is in it.
public struct PlacedRecord: Sendable, Equatable {
    /// The files placed, by their path relative to `--out`.
    public var files: [String: PlacedFile] = [:]
    /// The folders thumbgen created under `--out` (relative paths): the only ones a prune may
    /// remove, once empty.
    public var folders: Set<String> = []

    /// An empty record.
    public init(files: [String: PlacedFile] = [:], folders: Set<String> = []) {
        self.files = files
        self.folders = folders
    }
}

/// What a run changes in a record: written as a difference, so that a run of 100,000 rows
/// never holds the record twice.
public struct PlacedChanges: Sendable, Equatable {
    /// Files added, or replaced by what this run placed at their path.
    public var upserts: [PlacedFile] = []
    /// Paths that leave the record (pruned, gone, or changed by the user).
    public var removals: [String] = []
    /// Folders the run made.
    public var foldersMade: Set<String> = []
    /// Folders that leave the record (removed, or gone).
    public var foldersGone: Set<String> = []
    /// Whether an entry already on record was replaced or removed: runs saved before may no
    /// longer be whole in the record.
    public var replaces = false

    /// No change.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool { upserts.isEmpty && removals.isEmpty && foldersMade.isEmpty && foldersGone.isEmpty }

    /// `record` with the changes made.
    public func applied(to record: PlacedRecord) -> PlacedRecord {
        var record = record
        for file in upserts { record.files[file.path] = file }
        for path in removals { record.files[path] = nil }
        record.folders.formUnion(foldersMade)
        record.folders.subtract(foldersGone)
        return record
    }
}

/// Where the record of placed files of one `--out` folder lives: the cache's database, or a
/// file thumbgen owns inside `--out` when no cache is used.
public protocol PlacedRecordStoring: Sendable {
    /// Whether a run whose placed files hash to `fingerprint` (`PlacedLedger`) placed nothing
    /// the record lacks, as the record said when that run was saved: then a run that prunes
    /// nothing has nothing to write, and need not load the record.
    func holds(fingerprint: UInt64) -> Bool
    /// Whether a record of the folder was found (false for a new, emptied or damaged cache, or
    /// without a readable `.thumbgen-placed`): an empty `load()` then says nothing was placed.
    func hasRecord() -> Bool
    /// The record as saved (empty when there is none, or it cannot be read).
    func load() -> PlacedRecord
    /// Saves `changes` to the record, which was `previous` when loaded; `fingerprint` is the
    /// run's, which `holds(fingerprint:)` answers after. False when it could not be written.
    @discardableResult
    func save(_ changes: PlacedChanges, to previous: PlacedRecord, fingerprint: UInt64) -> Bool
}
