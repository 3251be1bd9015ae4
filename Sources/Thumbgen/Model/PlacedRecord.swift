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

/// Where the record of placed files of one `--out` folder lives: the cache's database, or a
/// file thumbgen owns inside `--out` when no cache is used.
public protocol PlacedRecordStoring: Sendable {
    /// Whether a run whose placed files hash to `fingerprint` (`PlacedLedger`) placed nothing
    /// the record lacks, as the record said when that run was saved: then a run that prunes
    /// nothing has nothing to write, and need not load the record.
    func holds(fingerprint: UInt64) -> Bool
    /// The record as saved (empty when there is none, or it cannot be read).
    func load() -> PlacedRecord
    /// Saves `record`, which was `previous` when loaded, writing only what changed;
    /// `fingerprint` is the run's, which `holds(fingerprint:)` answers after. False when it
    /// could not be written.
    @discardableResult
    func save(_ record: PlacedRecord, previous: PlacedRecord, fingerprint: UInt64) -> Bool
}
