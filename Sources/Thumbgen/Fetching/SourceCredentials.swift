import Foundation

/// Credentials for sources (docs/cache.md, Credentials for sources): a netrc, per-host header
/// lines (`--source-headers`), and S3 access for `s3://` sources. Each is sent only to the
/// origin it is for: a transfer that carries any follows its redirects itself
/// (`HTTPFetcher`), and a hop to another scheme, host or port goes without them. Nothing
/// here is ever printed: `description` names where credentials come from, not what they are.
public struct SourceCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The netrc consulted (`--netrc-file`, else `~/.netrc` when it exists), and the hosts it
    /// has an entry for; nil for none.
    public var netrc: NetrcHosts?
    /// Header lines per host (`--source-headers`).
    public var headers: [HostHeader] = []
    /// How `s3://` sources are signed; nil when the environment has no AWS key.
    public var s3: S3Access?

    /// No credentials at all.
    public init() {}

    /// Where credentials come from, without them.
    public var description: String {
        var parts: [String] = []
        if let netrc { parts.append("netrc \(netrc.path)") }
        if !headers.isEmpty { parts.append("\(headers.count) header line(s) for \(Set(headers.map(\.origin)).count) host(s)") }
        if let s3 { parts.append("S3 key \(s3.keyID.prefix(4))… in \(s3.region)") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// What a transfer of `url` carries, `authorised` being false once a redirect has left
    /// the first request's origin; nil when it carries nothing (it follows redirects as
    /// libcurl does).
    func forTransfer(_ url: URL, authorised: Bool) -> TransferCredentials? {
        guard authorised, let host = url.host?.lowercased() else { return nil }
        let port = Origin.port(of: url)
        let lines = headers.filter { $0.host == host && ($0.port == nil || $0.port == port) }.map(\.line)
        let netrcFile = netrc?.covers(host) == true ? netrc?.path : nil
        guard !lines.isEmpty || netrcFile != nil else { return nil }
        return TransferCredentials(headers: lines, netrcFile: netrcFile, sigV4: nil)
    }
}

/// What one transfer sends to prove who asks.
struct TransferCredentials: Sendable, Equatable {
    /// Header lines (`Authorization: Bearer ...`).
    var headers: [String]
    /// The netrc libcurl reads the host's login from (`CURLOPT_NETRC_FILE`).
    var netrcFile: String?
    /// libcurl's SigV4 provider, key and secret.
    var sigV4: (provider: String, keyID: String, secret: String)?
    /// The login the source URL's user info gave (`CURLOPT_USERNAME`, `CURLOPT_PASSWORD`).
    var login: SourceLogin?

    static func == (a: Self, b: Self) -> Bool {
        a.headers == b.headers && a.netrcFile == b.netrcFile && a.login == b.login && a.sigV4?.provider == b.sigV4?.provider
            && a.sigV4?.keyID == b.sigV4?.keyID && a.sigV4?.secret == b.sigV4?.secret
    }
}

/// A URL's scheme, host and port: credentials never cross from one to another.
struct Origin: Sendable, Equatable {
    var scheme: String, host: String, port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        self.scheme = scheme
        self.host = host
        port = Self.port(of: url)
    }

    /// The port `url` reaches: its own, else its scheme's.
    static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }
}

/// One header line for one host (and port, if given), from `--source-headers`.
public struct HostHeader: Sendable, Equatable {
    /// The host, lowercased.
    public var host: String
    /// The port, or nil for any.
    public var port: Int?
    /// The line as sent: `Name: value`.
    var line: String
    /// The header's name.
    public var name: String { String(line.prefix { $0 != ":" }) }
    /// `host` or `host:port`.
    public var origin: String { port.map { "\(host):\($0)" } ?? host }
}
