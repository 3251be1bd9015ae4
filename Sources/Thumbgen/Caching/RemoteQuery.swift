/// One question for the remote cache, about an entry the local cache lacks. The planner never
/// asks the remote itself: it plans `askRemote` with the query, and the executor asks
/// (`ThumbnailCache.pull`), stores what comes back locally, and plans the row again.
enum RemoteQuery: Hashable, Sendable {
    /// The output record under this key, with its blob.
    case output(key: String)
    /// The record of this URL (its body may stay on the remote until a row needs it).
    case url(String)
    /// The blob with this digest: a stored URL body a row needs.
    case body(digest: String)
}
