/// What a finished download brought back.
public struct FetchResponse: Sendable, Equatable {
    /// The final HTTP status (after redirects).
    public var status: Int
    /// Body bytes written to the destination file.
    public var bytes: Int64
    /// Requests made, retries included.
    public var attempts: Int
    /// Validators and freshness headers, for the cache.
    public var etag: String?, lastModified: String?, cacheControl: String?, expires: String?
    /// The response's `Date` header, the reference point for `Expires`.
    public var date: String?
    /// The SHA-256 of the body as stored (empty for a `304`).
    public var sha256: String = ""
}
