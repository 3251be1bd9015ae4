/// Where a run's records come from: a manifest file (`ManifestReader`), standard input through
/// a window that groups its records by source (`SourceWindow`), or the rows a walk over folders
/// makes (`TreeManifest`). `ManifestFeed` reads each the same way.
public protocol RecordSource: AnyObject {
    /// The folder relative `src` paths are resolved against.
    var baseDirectory: String { get }
    /// Called whenever the input has nothing to read right now, before the source waits.
    var onWait: (() -> Void)? { get set }
    /// The SHA-256, in hex, of the manifest's text read so far, when asked for (a shard's
    /// report names the manifest by it); nil otherwise.
    var sha256: String? { get }
    /// The next record or row error; nil at the end.
    func next() throws(ManifestError) -> Result<ManifestRecord, RowError>?
    /// Whether `next()` returns the records in another order than the manifest's (source by
    /// source); then the report puts its rows in manifest order itself, helped by `onRead`
    /// where the source calls it.
    var regroups: Bool { get }
    /// Hears the records' lines in manifest order, as they are read, when `regroups` and the
    /// source keeps few records ahead (`SourceWindow`): the report then writes its rows as it
    /// goes. A source that does not call it leaves the report to sort its rows at the end.
    var onRead: ((Int) -> Void)? { get set }
    /// How many sources' records came back in more than one stretch, though they were
    /// regrouped: a window too small for how far apart the manifest put them.
    var splitSources: Int { get }
}

extension ManifestReader: RecordSource {}
