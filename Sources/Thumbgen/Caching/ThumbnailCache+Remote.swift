import Foundation

/// The read-through to the remote cache: the executor asks it what the planner's `askRemote`
/// plans name (`pull`), and what the remote serves (checked) is stored locally before it is
/// used, so that the planner, the rest of the run and the next find it here. A cache that only
/// looks (`--dry-run`, `explain`) never asks the remote: it opens no connection.
extension ThumbnailCache {
    /// The remote, when this cache may ask it.
    private var askable: RemoteCache? { layout.looksOnly ? nil : remote }

    /// The output record under `key` with its stamp, as `OutputIndex.lookupStamped` gives it;
    /// when there is none here (or a damaged one), the remote's, with its blob, stored here
    /// first. A verdict here is an answer: the remote, which holds none, is not asked.
    func lookupOutput(_ key: String) -> (lookup: OutputIndex.Lookup, stamp: FileStamp?) {
        let local = outputs.lookupStamped(key)
        if local.lookup.answers { return local }
        guard let remote = askable, let (record, bytes) = remote.output(key) else { return local }
        blobs.put(Data(bytes), digest: record.sha256)
        outputs.store(record, key: key)
        let stored = outputs.lookupStamped(key)
        if case .found = stored.lookup { return stored }
        return (.found(record), nil)  // a full disk: still served, from memory, this once
    }

    /// The record of `url`: this cache's, else the remote's (stored here). Its blob may be
    /// only on the remote: `sourceBody` brings it when the bytes are needed.
    func urlRecord(_ url: String) -> URLRecord? {
        if let local = urls.record(url) { return local }
        guard let remote = askable, let record = remote.urlRecord(url) else { return nil }
        urls.store(record)
        return record
    }

    /// Whether the blob `digest` is here, brought from the remote (checked) if it was not;
    /// at most `maxBytes`.
    func sourceBody(_ digest: String, maxBytes: Int64) -> Bool {
        if blobs.contains(digest) { return true }
        guard let remote = askable, let bytes = remote.blob(digest, maxBytes: maxBytes) else { return false }
        blobs.put(Data(bytes), digest: digest)
        return blobs.contains(digest)
    }

    /// Asks the remote for what `query` names, when this cache lacks it, and stores what comes
    /// back here; `maxBytes` bounds a body. What was found is then read from the local cache.
    func pull(_ query: RemoteQuery, maxBytes: Int64) {
        switch query {
        case .output(let key): _ = lookupOutput(key)
        case .url(let url): _ = urlRecord(url)
        case .body(let digest): _ = sourceBody(digest, maxBytes: maxBytes)
        }
    }

    /// Whether a URL record's blob may be left on the remote for now: it is fetched only if a
    /// row turns out to need the bytes.
    var bodiesMayBeRemote: Bool { askable != nil }
}
