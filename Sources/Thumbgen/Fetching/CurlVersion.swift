import CCurl

/// The libcurl this process runs with, and the features thumbgen's downloads depend on.
public struct CurlVersion: Sendable, Equatable {
    /// libcurl's version, such as `7.88.1`.
    public var version: String
    /// The TLS library libcurl uses, with its version (`OpenSSL/3.0.11`); nil without TLS, when
    /// `https` sources cannot be fetched at all.
    public var ssl: String?
    /// Whether libcurl speaks HTTP/2, which lets one connection carry many downloads from a host.
    public var http2: Bool
    /// Whether libcurl has libz, without which a gzip- or deflate-encoded response cannot be read.
    public var zlib: Bool

    /// What the loaded libcurl reports. Read once: `curl_version_info` fills static buffers on
    /// its first call and is not safe to race, and the answer cannot change while the process runs.
    public static let current: CurlVersion = {
        // CURLVERSION_NOW is a macro Swift cannot see; every field read here exists since the
        // first version of the struct, and libcurl fills in the newest one whatever is asked.
        guard let info = curl_version_info(CURLVERSION_FIRST) else {
            return CurlVersion(version: "unknown", ssl: nil, http2: false, zlib: false)
        }
        let data = info.pointee
        let features = Int(data.features)
        return CurlVersion(
            version: data.version.map { String(cString: $0) } ?? "unknown",
            ssl: data.ssl_version.map { String(cString: $0) },
            http2: features & Int(CURL_VERSION_HTTP2) != 0,
            zlib: features & Int(CURL_VERSION_LIBZ) != 0)
    }()
}
