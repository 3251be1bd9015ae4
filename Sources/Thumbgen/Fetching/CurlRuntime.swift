import CCurl

/// Starts libcurl once per process, before the first handle is made.
enum CurlRuntime {
    private static let started: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Runs `curl_global_init` the first time; later calls do nothing.
    static func start() { _ = started }
}
