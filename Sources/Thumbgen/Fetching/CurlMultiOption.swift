import CCurl

/// The libcurl options thumbgen sets on its transfer loop's multi handle, under libcurl's own
/// names (without `CURLMOPT_`), so that an option libcurl refuses can be named in each row's
/// error.
enum CurlMultiOption: String, CaseIterable, Sendable {
    /// Connections open to one host at once (`--host-connections`).
    case maxHostConnections = "MAX_HOST_CONNECTIONS"
    /// Connections open at once in all (`--downloads`).
    case maxTotalConnections = "MAX_TOTAL_CONNECTIONS"

    /// The name libcurl's documentation gives it.
    var name: String { "CURLMOPT_" + rawValue }

    /// libcurl's constant for it.
    var code: CURLMoption {
        switch self {
        case .maxHostConnections: CURLMOPT_MAX_HOST_CONNECTIONS
        case .maxTotalConnections: CURLMOPT_MAX_TOTAL_CONNECTIONS
        }
    }
}
