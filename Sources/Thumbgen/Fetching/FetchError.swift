import Foundation

/// Why a download failed; each case maps to one stable row error code.
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error status (after retries, where they apply).
    case httpStatus(Int)
    /// No connection could be made, or it broke (after retries).
    case connection(String)
    /// The connect, total or stall timeout ran out.
    case timeout(String)
    /// The body is larger than `--max-bytes`.
    case tooLarge(limit: Int64)
    /// More redirects than `--max-redirects`.
    case tooManyRedirects
    /// The host resolved to an address that is not public, and `--allow-private-network` is off.
    case forbiddenAddress(String)
    /// The body ended before its announced length.
    case truncated
    /// The transfer was cancelled.
    case cancelled
    /// `--offline` is set and the cache holds no copy of the source.
    case offline
    /// libcurl refused an option thumbgen needs (`option`, as libcurl names it; `reason`, its
    /// words), so the transfer never started: no request was sent. `consequence` says what is
    /// lost without it, `remedy` how to get it back.
    case setup(option: String, reason: String, consequence: String?, remedy: String?)
    /// The body could not be written to the local file at `path` (`reason`, the system's
    /// words); `isFull` when the file system is full, over quota or read-only, where writing
    /// somewhere else may still work.
    case localWrite(path: String, reason: String, isFull: Bool)
    /// The source needs credentials thumbgen does not have (an `s3://` source without an AWS
    /// key in the environment): no request was sent. The words say what to set.
    case noCredentials(String)
    /// Anything else libcurl reported.
    case other(String)

    /// A readable account.
    public var description: String {
        switch self {
        case .httpStatus(let code): return "HTTP status \(code)"
        case .connection(let message): return "connection failed: \(message)"
        case .timeout(let message): return "timed out: \(message)"
        case .tooLarge(let limit): return "larger than --max-bytes (\(limit) bytes)"
        case .tooManyRedirects: return "too many redirects"
        case .forbiddenAddress(let address):
            return "refused: \(address) is not a public address (see --allow-private-network)"
        case .truncated: return "the body ended before its Content-Length"
        case .cancelled: return "cancelled"
        case .offline: return "not in the cache, and --offline forbids fetching it"
        case .setup(let option, let reason, let consequence, let remedy):
            return "cannot fetch: libcurl refused \(option) (\(reason))"
                + (consequence.map { ", so \($0)" } ?? "") + "; no request was sent"
                + (remedy.map { " (\($0))" } ?? "")
        case .localWrite(let path, let reason, _): return "\(path): cannot write: \(reason)"
        case .noCredentials(let words): return "cannot fetch: \(words); no request was sent"
        case .other(let message): return message
        }
    }
}

/// A failed download: why, and how hard thumbgen tried.
public struct FetchFailure: Error, Sendable, Equatable {
    /// What went wrong in the end.
    public var error: FetchError
    /// Requests made, retries included.
    public var attempts: Int
    /// The last HTTP status received (0 when none was).
    public var status: Int
}

extension FetchError {
    /// The local write failure `code` (an errno) at `path` makes.
    static func localWrite(path: String, errno code: Int32) -> FetchError {
        .localWrite(path: path, reason: String(cString: strerror(code)),
                    isFull: code == ENOSPC || code == EDQUOT || code == EROFS)
    }
}
