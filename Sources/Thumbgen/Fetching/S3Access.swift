import Foundation

/// How thumbgen reaches S3 for the remote cache and for `s3://` sources alike, read from the
/// AWS environment variables (never from a flag, which `ps` would show): the key, the region,
/// and an S3-compatible store's endpoint. Requests are signed by libcurl's SigV4.
public struct S3Access: Sendable, Equatable {
    /// `AWS_ACCESS_KEY_ID`.
    public var keyID: String
    /// `AWS_SECRET_ACCESS_KEY`.
    var secret: String
    /// `AWS_SESSION_TOKEN`, sent as `x-amz-security-token`.
    var sessionToken: String?
    /// `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`.
    public var region: String
    /// An S3-compatible store (MinIO, R2, moto), addressed path-style, without a trailing
    /// slash; nil for AWS itself.
    public var endpoint: String?

    /// The access `environment` gives, with `endpoint` (a flag's) ahead of
    /// `AWS_ENDPOINT_URL_S3` and `AWS_ENDPOINT_URL`; nil without a key and a secret.
    public init?(environment: [String: String], endpoint: String? = nil) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else { return nil }
        keyID = key
        self.secret = secret
        sessionToken = value("AWS_SESSION_TOKEN")
        region = Self.region(environment)
        self.endpoint = Self.endpoint(environment, given: endpoint)
    }

    /// The region `environment` names, else `us-east-1`.
    public static func region(_ environment: [String: String]) -> String {
        [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }.first { !$0.isEmpty }
            ?? "us-east-1"
    }

    /// `given`, else the endpoint `environment` names, without trailing slashes.
    public static func endpoint(_ environment: [String: String], given: String?) -> String? {
        let named = given ?? [environment["AWS_ENDPOINT_URL_S3"], environment["AWS_ENDPOINT_URL"]]
            .compactMap { $0 }.first { !$0.isEmpty }
        return named.map { String($0.reversed().drop { $0 == "/" }.reversed()) }
    }

    /// libcurl's `CURLOPT_AWS_SIGV4` provider for S3 in the region.
    var provider: String { "aws:amz:\(region):s3" }

    /// The header lines a signed request carries besides the signature: the session token,
    /// and the payload's hash (`payloadSHA256`), which S3 wants and libcurl 7.88 signs.
    func headers(payloadSHA256: String) -> [String] {
        (sessionToken.map { ["x-amz-security-token: \($0)"] } ?? []) + ["x-amz-content-sha256: " + payloadSHA256]
    }

    /// The HTTP URL of `key` (percent-encoded as a path) in `bucket`: path-style at an
    /// endpoint; virtual-hosted at AWS, as AWS prefers, but path-style for a bucket with a
    /// dot, which would not match the wildcard certificate.
    public static func objectURL(bucket: String, key: String, endpoint: String?, region: String) -> String {
        if let endpoint { return "\(endpoint)/\(bucket)/\(key)" }
        return bucket.contains(".") ? "https://s3.\(region).amazonaws.com/\(bucket)/\(key)"
            : "https://\(bucket).s3.\(region).amazonaws.com/\(key)"
    }

    /// The SHA-256 of an empty payload (a GET's).
    static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}
