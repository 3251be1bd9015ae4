import Foundation

/// One request of a fetch, with what it carries: the first is the source's own URL (an
/// `s3://` source's object URL, signed), each later one a redirect that thumbgen follows
/// itself because the fetch carries credentials. Credentials go along only while every hop
/// stays at the first request's scheme, host and port; once one leaves it, none goes again.
struct FetchHop: Sendable {
    /// The URL this request asks for.
    var url: URL
    /// The first request's origin.
    var origin: Origin?
    /// What this request carries; nil after a hop to another origin.
    var credentials: TransferCredentials?
    /// Redirects followed so far.
    var redirects = 0

    /// The statuses whose `Location` thumbgen follows, as libcurl does.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The first request for `url`, with what `credentials` and `login` give it; an `s3://`
    /// URL becomes the object's HTTP URL, signed, and fails at once without S3 access.
    static func first(_ url: URL, credentials: SourceCredentials, login: SourceLogin? = nil)
        -> Result<FetchHop, FetchError>
    {
        guard url.scheme?.lowercased() == "s3" else {
            var carried = credentials.forTransfer(url, authorised: true)
            if let login {
                carried = carried ?? TransferCredentials(headers: [], netrcFile: nil, sigV4: nil)
                carried?.login = login
            }
            return .success(FetchHop(url: url, origin: Origin(url), credentials: carried))
        }
        guard let access = credentials.s3 else {
            return .failure(.noCredentials("s3:// sources are signed with the AWS key: set AWS_ACCESS_KEY_ID and "
                                           + "AWS_SECRET_ACCESS_KEY (and AWS_REGION, or AWS_ENDPOINT_URL for an "
                                           + "S3-compatible store) in the environment"))
        }
        let bucket = url.host ?? ""
        let key = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath.dropFirst() ?? ""
        let text = S3Access.objectURL(bucket: bucket, key: String(key), endpoint: access.endpoint, region: access.region)
        guard let object = URL(string: text) else { return .failure(.other("\(url): not a valid S3 object URL")) }
        let signed = TransferCredentials(headers: access.headers(payloadSHA256: S3Access.emptyPayloadSHA256),
                                         netrcFile: nil, sigV4: (access.provider, access.keyID, access.secret))
        return .success(FetchHop(url: object, origin: Origin(object), credentials: signed))
    }

    /// The request for the redirect to `next`: with this one's credentials if it stays in the
    /// first request's origin, else with none.
    func following(to next: URL) -> FetchHop {
        var hop = self
        hop.url = next
        hop.redirects += 1
        if credentials == nil || Origin(next) != origin { hop.credentials = nil }
        return hop
    }
}
