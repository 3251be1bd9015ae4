import Foundation

/// What a run has done so far, and the one line that says it: rows done of the total, rate,
/// time left, failures, bytes downloaded. Pure arithmetic and text, so it is tested apart from
/// any terminal.
public struct ProgressMeter: Sendable, Equatable {
    /// Rows finished, whatever their status.
    public var done = 0
    /// Rows that failed.
    public var failed = 0
    /// Bytes received from servers.
    public var downloaded: Int64 = 0
    /// Rows in the manifest, once known (it is counted while the run goes).
    public var total: Int?

    /// A meter with nothing done.
    public init() {}

    /// Counts one finished row.
    public mutating func count(_ result: RowResult) {
        done += 1
        if result.status == .failed { failed += 1 }
        downloaded += result.http?.bytes ?? 0
    }

    /// `57/118 rows  23.4/s  ETA 0:03  2 failed  12.3 MiB downloaded` after `seconds`.
    public func line(seconds: Double) -> String {
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var parts = ["\(done)/\(total.map(String.init) ?? "?") rows", String(format: "%.1f/s", rate)]
        if let total, rate > 0, done < total {
            parts.append("ETA " + Self.clock(Double(total - done) / rate))
        }
        if failed > 0 { parts.append("\(failed) failed") }
        if downloaded > 0 { parts.append(Self.bytes(downloaded) + " downloaded") }
        return parts.joined(separator: "  ")
    }

    /// The line with a bar of `width` characters in front: `[#####.....] `.
    public func bar(width: Int) -> String {
        guard let total, total > 0, width > 2 else { return "" }
        let filled = min(width - 2, (width - 2) * done / total)
        return "[" + String(repeating: "#", count: filled)
            + String(repeating: ".", count: width - 2 - filled) + "] "
    }

    /// `1:02:03`, `4:05` or `0:07`.
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// `812 B`, `12.3 KiB`, `4.5 MiB`, `1.2 GiB`: the cache commands' own wording.
    public static func bytes(_ count: Int64) -> String {
        CacheMaintenance.text(bytes: count)
    }
}
