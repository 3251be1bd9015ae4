/// What a finished download brought back.
public struct FetchResponse: Sendable, Equatable {
    /// The final HTTP status (after redirects).
    public var status: Int
    /// Body bytes written to the destination file.
    public var bytes: Int64
    /// Requests made, retries included.
    public var attempts: Int
    /// The URL the body came from, after redirects.
    public var finalURL: String
    /// Validators and freshness headers, for the cache.
    public var etag: String?, lastModified: String?, cacheControl: String?, expires: String?
}
