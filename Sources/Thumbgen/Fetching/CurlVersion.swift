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
    /// Whether libcurl takes the pre-request hook (`CURLOPT_PREREQFUNCTION`, libcurl 7.80) the
    /// address guard runs in; without it, URL rows are refused unless `--allow-private-network`.
    public var addressGuard = true
    /// Whether libcurl can be restricted to http and https, redirects included
    /// (`CURLOPT_PROTOCOLS_STR`, 7.85, or the older bitmask); without it, URL rows are refused.
    public var protocolRestriction = true

    /// The loaded libcurl's version, such as `7.88.1`, without probing its safeguards.
    public static var libraryVersion: String { loaded.version.version }

    /// What the loaded libcurl reports, and which safeguards it can install (tried on a handle
    /// that never runs).
    public static let current = probed(refusing: CurlRefusals())

    /// What the loaded libcurl reports, with its safeguards probed as if it lacked the options
    /// `refusals` names.
    static func probed(refusing refusals: CurlRefusals) -> CurlVersion {
        var version = loaded.version
        (version.addressGuard, version.protocolRestriction) = CurlTransfer.probeSafeguards(refusing: refusals)
        return version
    }

    /// The safeguards missing for a run, as `thumbgen doctor` names them; the address guard is
    /// not needed when `allowPrivateNetwork` is set.
    public func missingSafeguards(allowPrivateNetwork: Bool) -> [String] {
        var missing: [String] = []
        if !addressGuard && !allowPrivateNetwork {
            missing.append("address guard (CURLOPT_PREREQFUNCTION: libcurl 7.80 or newer, "
                           + "or run with --allow-private-network)")
        }
        if !protocolRestriction {
            missing.append("protocol restriction (CURLOPT_PROTOCOLS_STR: libcurl 7.85 or newer)")
        }
        return missing
    }

    /// The protocols thumbgen fetches over, as this libcurl has them, for
    /// `CURLOPT_PROTOCOLS_STR`: `http,https`, or `http` alone without TLS (libcurl refuses a list
    /// naming a protocol it lacks, which would refuse plain http too).
    static let webProtocols: String = {
        ["http", "https"].filter(loaded.protocols.contains).joined(separator: ",")
    }()

    /// `curl_version_info`, read once: it fills static buffers on its first call and is not safe
    /// to race, and the answer cannot change while the process runs.
    private static let loaded: (version: CurlVersion, protocols: Set<String>) = {
        // CURLVERSION_NOW is a macro Swift cannot see; every field read here exists since the
        // first version of the struct, and libcurl fills in the newest one whatever is asked.
        guard let info = curl_version_info(CURLVERSION_FIRST) else {
            return (CurlVersion(version: "unknown", ssl: nil, http2: false, zlib: false), [])
        }
        let data = info.pointee
        let features = Int(data.features)
        var protocols: Set<String> = []
        if var next = data.protocols {
            while let name = next.pointee {
                protocols.insert(String(cString: name))
                next += 1
            }
        }
        let version = CurlVersion(
            version: data.version.map { String(cString: $0) } ?? "unknown",
            ssl: data.ssl_version.map { String(cString: $0) },
            http2: features & Int(CURL_VERSION_HTTP2) != 0,
            zlib: features & Int(CURL_VERSION_LIBZ) != 0)
        return (version, protocols)
    }()
}
