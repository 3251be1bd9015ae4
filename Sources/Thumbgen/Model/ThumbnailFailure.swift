/// Stable error codes for failed rows; scripts may rely on them (documented in README.md).
public enum ErrorCode: String, Sendable, Codable, CaseIterable {
    /// A cell's value is missing or malformed.
    case invalidRow = "invalid_row"
    /// The source file does not exist.
    case sourceNotFound = "source_not_found"
    /// The source exists but cannot be read (permissions, a folder, ...).
    case sourceUnreadable = "source_unreadable"
    /// The source is not in an enabled image format.
    case unsupportedFormat = "unsupported_format"
    /// The source is an image but its data is broken (truncated, corrupt).
    case decodeFailed = "decode_failed"
    /// The output could not be encoded.
    case encodeFailed = "encode_failed"
    /// The output path would leave `--out`.
    case outputEscapes = "output_escapes"
    /// The output could not be written.
    case writeFailed = "write_failed"
    /// The server answered with an error status (4xx, or 5xx after retries).
    case httpError = "http_error"
    /// No connection could be made, or it broke (after retries).
    case networkError = "network_error"
    /// The connect, total or stall timeout ran out, or a decode or encode ran past `--timeout`.
    case timeout
    /// The source or output is over a limit: `--max-bytes`, `--max-pixels`, `--max-frames`,
    /// `--max-output-size`.
    case tooLarge = "too_large"
    /// The source redirects more than `--max-redirects` times (or in a loop).
    case tooManyRedirects = "too_many_redirects"
    /// The host resolved to a non-public address and `--allow-private-network` is off.
    case forbiddenAddress = "forbidden_address"
    /// `--offline` is set and the row needs a source the cache does not hold.
    case notCached = "not_cached"
    /// libcurl refused an option a download needs (named in the message), such as the address
    /// guard of a libcurl older than 7.80; no request was sent.
    case fetchSetupFailed = "fetch_setup_failed"
    /// The row asks for something this version cannot do yet.
    case notSupported = "not_supported"
    /// The run was interrupted before the row finished.
    case cancelled
    /// An earlier row in the manifest writes other bytes to the same output path.
    case outputConflict = "output_conflict"
    /// The worker process decoding the source died (a signal, such as SIGSEGV in a decoder);
    /// the message names the signal and the stage. The run goes on with a new worker.
    case crashed
}

/// Why one row failed: a code for scripts and a message for people that names the source.
public struct ThumbnailFailure: Error, Sendable, Equatable {
    /// The stable code scripts match on.
    public var code: ErrorCode
    /// A readable message that names the source.
    public var message: String

    /// Makes a failure.
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The failure for a row the manifest parser refused.
    init(_ error: RowError) {
        self.init(.invalidRow, error.detail)
    }

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

    /// The failure for a libvips error met at `stage` (`decodeFailed` or `encodeFailed`).
    static func imaging(_ error: ImagingError, src: String, stage: ErrorCode) -> ThumbnailFailure {
        switch error {
        case .unsupportedFormat:
            return ThumbnailFailure(.unsupportedFormat, "\(src): not a JPEG, PNG, WebP, GIF, TIFF, "
                                    + "HEIF/AVIF or JPEG XL image")
        case .libvips(let operation, let message):
            return ThumbnailFailure(stage, "\(src): \(operation): \(message)")
        case .overLimit:
            return ThumbnailFailure(.tooLarge, "\(src): \(error)")
        case .timedOut:
            return ThumbnailFailure(.timeout, "\(src): \(error)")
        }
    }
}
