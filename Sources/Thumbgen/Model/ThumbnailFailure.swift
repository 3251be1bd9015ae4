/// Stable error codes for failed rows; scripts may rely on them (documented in docs/command-line.md, Error codes).
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
    /// The run was interrupted before the row finished.
    case cancelled
    /// An earlier row in the manifest writes other bytes to the same output path.
    case outputConflict = "output_conflict"
    /// The worker process decoding the source died (a signal, such as SIGSEGV in a decoder);
    /// the message names the signal and the stage. The run goes on with a new worker.
    case crashed
    /// The output is over its row's `max_output_bytes` even at `--min-quality` (or in a format
    /// without a quality to lower); the message gives the bytes and the limit.
    case overBudget = "over_budget"
}

/// Why one row failed: a code for scripts and a message for people that names the source.
public struct ThumbnailFailure: Error, Sendable, Equatable {
    /// The stable code scripts match on.
    public var code: ErrorCode
    /// A readable message that names the source.
    public var message: String
    /// For an `over_budget` row whose output cannot fit its `max_output_bytes` (not one that
    /// `--budget` refused): what the search found, which the cache keeps as the row's verdict.
    public var overBudget: OutputOverBudget?

    /// Makes a failure.
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The failure of a row whose output cannot fit its `max_output_bytes`, as `verdict` found.
    static func overBudget(_ verdict: OutputOverBudget, src: String) -> ThumbnailFailure {
        var failure = ThumbnailFailure(.overBudget, "\(src): \(verdict)")
        failure.overBudget = verdict
        return failure
    }

    /// The failure of a row cancelled before it ended, whatever stage it was in.
    static func cancelled(_ src: String) -> ThumbnailFailure {
        ThumbnailFailure(.cancelled, "\(src): cancelled")
    }
}
