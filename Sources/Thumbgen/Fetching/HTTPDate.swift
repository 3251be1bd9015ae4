import Foundation

/// HTTP dates (RFC 9110 §5.6.7, the IMF-fixdate form every current server sends).
enum HTTPDate {
    /// Seconds since 1970 for `text`, or nil when it is not an HTTP date.
    static func parse(_ text: String) -> Double? {
        formatter.withLock { $0.date(from: text.trimmingCharacters(in: .whitespaces)) }?
            .timeIntervalSince1970
    }

    private static let formatter: LockedFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return LockedFormatter(formatter)
    }()
}

/// A `DateFormatter` (not thread-safe) behind a lock.
final class LockedFormatter: @unchecked Sendable {
    private let formatter: DateFormatter
    private let lock = NSLock()

    init(_ formatter: DateFormatter) { self.formatter = formatter }

    func withLock<T>(_ body: (DateFormatter) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(formatter)
    }
}
