import Foundation

/// When a failed attempt is worth repeating, and after how long.
struct RetryPolicy: Sendable {
    var policy: FetchPolicy

    /// Whether an attempt that ended in `error` may be repeated (connection trouble, 429, 5xx).
    func isRetryable(_ error: FetchError) -> Bool {
        switch error {
        case .connection, .truncated: return true
        case .httpStatus(let code): return code == 429 || (500...599).contains(code)
        default: return false
        }
    }

    /// The wait before attempt `attempt + 1`: the server's `Retry-After` (seconds or an HTTP
    /// date) when it gives one, else exponential backoff with full jitter; capped either way.
    func delay(afterAttempt attempt: Int, retryAfter: String?) -> Double {
        if let retryAfter, let seconds = Self.seconds(inRetryAfter: retryAfter) {
            return min(policy.retryMaxDelay, max(0, seconds))
        }
        let ceiling = min(policy.retryMaxDelay, policy.retryBaseDelay * pow(2, Double(attempt - 1)))
        return Double.random(in: ceiling / 2...ceiling)
    }

    /// The seconds a `Retry-After` value asks for: a number, or an HTTP date from now.
    static func seconds(inRetryAfter value: String) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text) { return seconds }
        return HTTPDate.parse(text).map { $0 - Date().timeIntervalSince1970 }
    }
}
