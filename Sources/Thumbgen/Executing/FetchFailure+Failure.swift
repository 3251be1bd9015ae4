extension ThumbnailFailure {
    /// The failure for a download that did not succeed.
    static func fetch(_ failure: FetchFailure, src: String) -> ThumbnailFailure {
        let code: ErrorCode
        switch failure.error {
        case .httpStatus: code = .httpError
        case .connection, .truncated, .other: code = .networkError
        case .timeout: code = .timeout
        case .tooLarge: code = .tooLarge
        case .tooManyRedirects: code = .tooManyRedirects
        case .forbiddenAddress: code = .forbiddenAddress
        case .cancelled: code = .cancelled
        case .offline: code = .notCached
        case .setup: code = .fetchSetupFailed
        }
        let tries = failure.attempts > 1 ? " (after \(failure.attempts) attempts)" : ""
        return ThumbnailFailure(code, "\(src): \(failure.error)\(tries)")
    }
}
