import Foundation

/// Why a remote request got no usable answer: no answer at all (refused, timed out, stalled),
/// or a status that is neither success nor "not there".
enum RemoteFailure: Error, CustomStringConvertible, Equatable {
    case transport(FetchError)
    /// The status, and S3's error code when the body names one (`SignatureDoesNotMatch`).
    case status(Int, String?)

    var description: String {
        switch self {
        case .transport(let error): error.description
        case .status(let code, let detail): "HTTP status \(code)" + (detail.map { " (\($0))" } ?? "")
        }
    }
}

/// The remote cache's files over HTTP: GET and PUT of `v1/blobs/ab/DIGEST`,
/// `v1/outputs/ab/KEY` and `v1/urls/ab/SHA256-OF-URL` under the store's prefix, the same
/// names the local cache uses (`CacheLayout`). It knows nothing of what the files mean.
struct RemoteStore: Sendable {
    /// The kinds of file the remote holds.
    enum Kind: String, Sendable {
        case blobs, outputs, urls
    }

    let settings: RemoteCacheSettings
    private let pool = CurlRequestPool()

    init(settings: RemoteCacheSettings) {
        self.settings = settings
    }

    /// The path of a file under the store's root: `v1/KIND/ab/NAME`.
    static func path(_ kind: Kind, _ name: String) -> String {
        "v1/\(kind.rawValue)/\(name.prefix(2))/\(name)"
    }

    /// The URL of `kind`/`name`.
    func url(_ kind: Kind, _ name: String) -> String {
        let path = Self.path(kind, name)
        switch settings.backend {
        case .http(let base):
            return base + "/" + path
        case .s3(let bucket, let prefix, let endpoint, let region):
            let key = prefix.isEmpty ? path : prefix + "/" + path
            return S3Access.objectURL(bucket: bucket, key: key, endpoint: endpoint, region: region)
        }
    }

    /// The file's bytes, nil when the store does not have it (404); at most `maxBytes`.
    func get(_ kind: Kind, _ name: String, maxBytes: Int64) -> Result<[UInt8]?, RemoteFailure> {
        send(.get, kind, name, maxBytes: maxBytes).map { $0.map(\.body) }
    }

    /// Stores `bytes` as the file (replacing it).
    func put(_ kind: Kind, _ name: String, _ bytes: [UInt8]) -> Result<Void, RemoteFailure> {
        send(.put, kind, name, body: bytes, maxBytes: 1 << 20).map { _ in () }
    }

    private func send(_ method: StoreRequest.Method, _ kind: Kind, _ name: String, body: [UInt8] = [],
                      maxBytes: Int64) -> Result<StoreResponse?, RemoteFailure> {
        var headers = settings.headers
        switch settings.backend {
        case .s3:
            // S3 wants the payload's hash, and libcurl 7.88 signs the header when it is given.
            // Every header line given is signed, so none is added that is not sent as given.
            headers.append("x-amz-content-sha256: " + ContentDigest.of(body))
        case .http:
            headers.append("Expect:")  // no 100-continue round trip before a large PUT
        }
        if method == .put { headers.append("Content-Type: application/octet-stream") }
        let request = StoreRequest(
            method: method, url: url(kind, name), headers: headers, body: body, auth: settings.auth,
            limits: StoreLimits(connect: settings.connectTimeout, stall: settings.stallTimeout,
                                total: settings.timeout, maxBytes: max(maxBytes, 64 << 10)))
        switch pool.perform(request) {
        case .failure(let error):
            return .failure(.transport(error))
        case .success(let response):
            switch response.status {
            case 200...299: return .success(response)
            case 404: return .success(nil)
            default: return .failure(.status(response.status, Self.errorCode(response.body)))
            }
        }
    }

    /// S3's `<Code>...</Code>` from an error body, if there is one.
    private static func errorCode(_ body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        guard let start = text.range(of: "<Code>"), let end = text.range(of: "</Code>"),
              start.upperBound <= end.lowerBound else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }
}
