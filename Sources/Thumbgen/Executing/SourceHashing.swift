/// Where a run learns a local source's digest before it decodes the file: the cache's
/// `FileIndex` (a stamp on record, else a read). A capability, so that a test can hand the
/// pipeline a double that counts the hashes and acts between a hash and the decode after it
/// (rewriting the file, say) without timing anything.
protocol SourceHashing: Sendable {
    /// The digest of the file at `file` and the stamp it belongs to; nil when it cannot be
    /// read, or `cancellation` was pressed while it was.
    func digest(of file: String, cancellation: Cancellation?) -> (digest: String, stamp: FileIndex.Stamp)?
}

extension FileIndex: SourceHashing {}
