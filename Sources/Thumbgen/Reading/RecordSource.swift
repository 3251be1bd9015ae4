/// Where a run's records come from: a manifest file (`ManifestReader`), or the rows a walk
/// over folders makes (`TreeManifest`). `ManifestFeed` reads either the same way.
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
}

extension ManifestReader: RecordSource {}
