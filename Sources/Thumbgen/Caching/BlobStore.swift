import Foundation

/// Bytes stored under the SHA-256 of their content: source images and rendered outputs.
///
/// A blob is checked against its name whenever it is served, and one that does not match
/// (a flipped bit, a torn copy from another machine) is reported missing, so the caller rebuilds
/// it: damaged bytes are never handed on. Serving deletes nothing: `put` replaces a damaged
/// copy, and the executor's `verifyFile` drops a stored source it finds damaged.
struct BlobStore: Sendable {
    let layout: CacheLayout

    /// Where the blob `digest` lives (whether or not it is there).
    func path(_ digest: String) -> String { layout.path(.blobs, digest) }

    /// Whether a blob named `digest` is present (not checked).
    func contains(_ digest: String) -> Bool {
        var info = stat()
        return stat(path(digest), &info) == 0
    }

    /// Stores `data`, whose digest is `digest`, unless a sound copy is already there. A blob
    /// of that name is checked, not trusted: a damaged one whose record was lost with it would
    /// otherwise never be repaired.
    func put(_ data: Data, digest: String) {
        if let (bytes, _) = layout.read(path(digest)), bytes.count == data.count,
           ContentDigest.of(bytes) == digest { return }
        layout.write(data, to: path(digest))
    }

    /// Stores `file` (in the cache's temporary folder, so on the same file system) as the blob
    /// `digest` by a second name, a hard link, leaving `file` where it is: the run goes on
    /// reading its own name, which a `cache prune` running meanwhile cannot take from it. The
    /// link is made beside `file` (`.blob` appended), in its writer's locked folder, then
    /// renamed into place. False when the file system refuses the link.
    func ingestLinked(_ file: String, digest: String) -> Bool {
        let link = file + ".blob"
        guard Foundation.link(file, link) == 0 else { return false }
        guard layout.place(link, at: path(digest)) else {
            unlink(link)
            return false
        }
        return true
    }

    /// The blob's bytes, checked against its digest; nil when they do not match (the blob is
    /// left for `put`, which replaces a damaged copy, or `cache verify`) or it is missing.
    func verifiedData(_ digest: String) -> Data? {
        // Read without marking: a blob goes with the record that names it, whose use counts.
        guard let (bytes, _) = layout.read(path(digest)), ContentDigest.of(bytes) == digest else {
            return nil
        }
        return Data(bytes)
    }

    /// Whether the blob is present and matches its digest (read through once); a damaged blob
    /// is removed.
    func verifyFile(_ digest: String) -> Bool {
        let blob = path(digest)
        guard let actual = ContentDigest.ofFile(at: blob) else { return false }
        guard actual == digest else {
            layout.remove(blob)
            return false
        }
        return true
    }
}
