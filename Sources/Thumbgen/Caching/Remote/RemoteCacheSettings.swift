import Foundation

/// Why a remote cache cannot be used as given: a bad `--remote-cache` URL, or credentials
/// that are missing from the environment.
public struct RemoteCacheError: Error, CustomStringConvertible, Equatable {
    /// What is wrong, naming the flag or the variable.
    public var description: String
}

/// Where the remote cache is, how thumbgen reaches it, and how long it waits for it (docs/cache.md,
/// Sharing a cache between machines). Credentials come from the environment (or a netrc),
/// never from a flag, which `ps` would show to every user of the machine.
public struct RemoteCacheSettings: Sendable, Equatable {
    /// The kind of store.
    public enum Backend: Sendable, Equatable {
        /// A plain HTTP(S) server taking GET and PUT under `base` (nginx with WebDAV,
        /// as Bazel's HTTP cache is commonly served); no trailing slash.
        case http(base: String)
        /// An S3 bucket or an S3-compatible store, signed with SigV4. `endpoint` (MinIO, R2,
        /// moto) is addressed path-style; without one, AWS itself, virtual-hosted.
        case s3(bucket: String, prefix: String, endpoint: String?, region: String)
    }

    /// The store.
    public var backend: Backend
    /// `--remote-cache-read-only`: read the remote, never write it.
    public var readOnly = false
    /// Seconds one request may take in all (`--remote-cache-timeout`); connecting is given at
    /// most 5 of them, and a request that receives nothing for 10 (or `timeout`, if less) is
    /// abandoned.
    public var timeout = 30.0
    /// Failures in a row after which the remote is not asked again in this run (the circuit
    /// breaker).
    public var failuresBeforeGivingUp = 3
    /// Uploads waiting at most; one more is dropped (and counted), so a slow remote never
    /// holds up a run.
    public var uploadQueueLimit = 1024
    /// Uploads in flight at once.
    public var uploadConcurrency = 4
    /// How requests are signed or authorised.
    var auth: StoreAuth = .none
    /// Header lines every request carries (a bearer token, an AWS session token).
    var headers: [String] = []

    /// Seconds to connect.
    var connectTimeout: Double { min(5, timeout) }
    /// Seconds without a byte before a request is abandoned.
    var stallTimeout: Double { min(10, timeout) }
    /// Seconds the end of a run waits for uploads still queued.
    public var flushTimeout: Double { max(10, 2 * timeout) }

    /// Settings for `url` (`http(s)://host/prefix` or `s3://bucket/prefix`), with
    /// `--remote-cache-endpoint` for an S3-compatible store, credentials read from
    /// `environment`:
    /// - HTTP: `THUMBGEN_REMOTE_CACHE_TOKEN` (a bearer token), else `THUMBGEN_REMOTE_CACHE_USER`
    ///   and `THUMBGEN_REMOTE_CACHE_PASSWORD` (basic), else the netrc (`$NETRC`, else
    ///   `~/.netrc`), if it has the host.
    /// - S3: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` (optional),
    ///   `AWS_REGION` or `AWS_DEFAULT_REGION` (else `us-east-1`); `AWS_ENDPOINT_URL_S3` or
    ///   `AWS_ENDPOINT_URL` when no endpoint is given.
    public init(url: String, endpoint: String? = nil, readOnly: Bool = false, timeout: Double = 30,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(RemoteCacheError) {
        self.readOnly = readOnly
        self.timeout = timeout
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard timeout > 0, timeout.isFinite else { throw RemoteCacheError(description: "--remote-cache-timeout must be more than 0 seconds") }
        if url.hasPrefix("s3://") {
            let rest = url.dropFirst(5)
            let bucket = String(rest.prefix { $0 != "/" })
            let prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            guard Self.isBucketName(bucket) else {
                throw RemoteCacheError(description: "--remote-cache \(url): \"\(bucket)\" is not an S3 bucket name")
            }
            try Self.checkPrefix(prefix, in: url)
            // The same reading as s3:// sources' (`S3Access`).
            guard let access = S3Access(environment: environment, endpoint: endpoint) else {
                throw RemoteCacheError(description: "--remote-cache \(url): set AWS_ACCESS_KEY_ID and "
                                       + "AWS_SECRET_ACCESS_KEY in the environment")
            }
            if let endpoint = access.endpoint { try Self.checkWebURL(endpoint, flag: "--remote-cache-endpoint") }
            backend = .s3(bucket: bucket, prefix: prefix, endpoint: access.endpoint, region: access.region)
            auth = .awsSigV4(provider: access.provider, keyID: access.keyID, secret: access.secret)
            if let token = access.sessionToken { headers.append("x-amz-security-token: \(token)") }
            return
        }
        guard endpoint == nil else {
            throw RemoteCacheError(description: "--remote-cache-endpoint is for s3:// remote caches only")
        }
        try Self.checkWebURL(url, flag: "--remote-cache")
        let base = String(url.reversed().drop { $0 == "/" }.reversed())
        backend = .http(base: base)
        if let token = value("THUMBGEN_REMOTE_CACHE_TOKEN") {
            headers.append("Authorization: Bearer \(token)")
        } else if let user = value("THUMBGEN_REMOTE_CACHE_USER") {
            auth = .basic(user: user, password: environment["THUMBGEN_REMOTE_CACHE_PASSWORD"] ?? "")
        } else {
            auth = .netrc(file: value("NETRC"))
        }
    }

    /// The store as messages name it (never with credentials: there are none in it).
    public var location: String {
        switch backend {
        case .http(let base): base
        case .s3(let bucket, let prefix, _, _): "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)")
        }
    }

    private static func checkWebURL(_ text: String, flag: String) throws(RemoteCacheError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw RemoteCacheError(description: "\(flag) \(text): give an http://, https:// or s3:// URL")
        }
        guard url.user == nil && url.password == nil else {
            throw RemoteCacheError(description: "\(flag): no credentials in the URL (they would show in ps); "
                                   + "use THUMBGEN_REMOTE_CACHE_TOKEN, THUMBGEN_REMOTE_CACHE_USER and "
                                   + "THUMBGEN_REMOTE_CACHE_PASSWORD, or a netrc")
        }
        guard url.query == nil && url.fragment == nil else {
            throw RemoteCacheError(description: "\(flag) \(text): a query or fragment has no place in a cache URL")
        }
    }

    /// Letters, digits, `.`, `-`, `_` and `/` only: the prefix goes into request paths (and
    /// into what SigV4 signs) as it is.
    private static func checkPrefix(_ prefix: String, in url: String) throws(RemoteCacheError) {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-/"))
        guard prefix.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }),
              !prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." || $0.isEmpty }) || prefix.isEmpty
        else {
            throw RemoteCacheError(description: "--remote-cache \(url): the prefix may hold only letters, "
                                   + "digits, '.', '-', '_' and single '/'")
        }
    }

    private static func isBucketName(_ name: String) -> Bool {
        (3...63).contains(name.count) && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
        }
    }
}
