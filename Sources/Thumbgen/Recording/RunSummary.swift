import Foundation

/// Counts over a run's rows: the report's `summary` and the line printed at the end.
public struct RunSummary: Sendable, Codable, Equatable {
    /// Rows read from the manifest.
    public var rows = 0
    /// Rows whose output was written.
    public var written = 0
    /// Rows whose output already held the same bytes.
    public var unchanged = 0
    /// Rows that failed.
    public var failed = 0
    /// Rows cancelled by an interruption.
    public var cancelled = 0
    /// Rows `--drop-larger` left out (nil when none was).
    public var dropped: Int?
    /// Failed rows per error code.
    public var errors: [String: Int] = [:]
    /// Wall time of the run in seconds.
    public var seconds: Double = 0
    /// CPU time of the process (user + system) in seconds.
    public var cpuSeconds: Double = 0
    /// Bytes read and written, summed over rows.
    public var bytes = ByteCounts()
    /// Milliseconds per stage, summed over rows (stages of rows running at once overlap, so
    /// the sum can exceed the wall time).
    public var ms = StageTotals()
    /// Rows by cache outcome (runs with a cache only).
    public var cache: CacheCounts?
    /// Rows by what `thumbgen warm` did (warm runs only).
    public var warm: WarmCounts?
    /// Rows by what a run would do (`--dry-run` only).
    public var plan: PlanCounts?
    /// Files `--prune` removed (with `--dry-run`, would remove); nil without `--prune`.
    public var pruned: Int?
    /// Sources whose rows came in more than one stretch, each read and decoded on its own:
    /// their rows on standard input were further apart than its window (`SourceWindow`); nil
    /// when none were.
    public var splitSources: Int?

    /// Rows by what a run would do for them.
    public struct PlanCounts: Sendable, Codable, Equatable {
        /// Rows per `RowResult.Plan`.
        public var keep = 0, reuse = 0, render = 0, fetch = 0
    }

    /// Rows by cache outcome.
    public struct CacheCounts: Sendable, Codable, Equatable {
        /// Served from the cache without asking a server.
        public var hit = 0
        /// Rendered in this run.
        public var miss = 0
        /// Served from the cache after a `304`.
        public var revalidated = 0
        /// Writes the cache refused (a full or read-only file system): set only when there were
        /// any; the outputs were written all the same.
        public var notStored: Int?

        private enum CodingKeys: String, CodingKey {
            case hit, miss, revalidated
            case notStored = "not_stored"
        }
    }

    /// Bytes in and out, summed over rows: a source that several rows share counts for each.
    public struct ByteCounts: Sendable, Codable, Equatable {
        /// Source bytes of the rows whose source was opened (not those the cache served).
        public var `in`: Int64 = 0
        /// Bytes received from servers.
        public var downloaded: Int64 = 0
        /// Output bytes of the rows written or unchanged.
        public var out: Int64 = 0
    }

    /// Milliseconds per stage, summed over rows.
    public struct StageTotals: Sendable, Codable, Equatable {
        /// Milliseconds per stage, as in `RowResult.StageTimes`.
        public var download = 0.0, decode = 0.0, render = 0.0, write = 0.0
    }

    /// Rows by what `thumbgen warm` did for them.
    public struct WarmCounts: Sendable, Codable, Equatable {
        /// Rows per `RowResult.WarmOutcome`.
        public var fresh = 0, revalidated = 0, fetched = 0, rendered = 0, failed = 0
    }

    private enum CodingKeys: String, CodingKey {
        case rows, written, unchanged, failed, cancelled, dropped, errors, seconds, cache, warm, bytes, ms, plan, pruned
        case cpuSeconds = "cpu_seconds"
        case splitSources = "split_sources"
    }

    /// Rounds the totals for the report: milliseconds to a tenth.
    mutating func roundTotals() {
        func round(_ v: Double) -> Double { (v * 10).rounded() / 10 }
        ms = StageTotals(download: round(ms.download), decode: round(ms.decode),
                         render: round(ms.render), write: round(ms.write))
    }

    /// An empty summary.
    public init() {}

    /// Counts one more row.
    public mutating func count(_ result: RowResult) {
        rows += 1
        switch result.status {
        case .written: written += 1
        case .unchanged: unchanged += 1
        case .failed: failed += 1
        case .cancelled: cancelled += 1
        case .dropped: dropped = (dropped ?? 0) + 1
        case .planned: break
        }
        if let planned = result.plan {
            var counts = plan ?? PlanCounts()
            switch planned {
            case .keep: counts.keep += 1
            case .reuse: counts.reuse += 1
            case .render: counts.render += 1
            case .fetch: counts.fetch += 1
            }
            plan = counts
        }
        if result.status == .failed, let code = result.error?.code {
            errors[code.rawValue, default: 0] += 1
        }
        bytes.in += result.source?.bytes ?? 0
        bytes.downloaded += result.http?.bytes ?? 0
        if result.status == .written || result.status == .unchanged { bytes.out += Int64(result.bytes ?? 0) }
        if let times = result.ms {
            ms.download += times.download ?? 0
            ms.decode += times.decode ?? 0
            ms.render += times.render ?? 0
            ms.write += times.write ?? 0
        }
        if let outcome = result.cache {
            var counts = cache ?? CacheCounts()
            switch outcome {
            case .hit: counts.hit += 1
            case .miss: counts.miss += 1
            case .revalidated: counts.revalidated += 1
            }
            cache = counts
        }
        if let outcome = result.warm {
            var counts = warm ?? WarmCounts()
            switch outcome {
            case .fresh: counts.fresh += 1
            case .revalidated: counts.revalidated += 1
            case .fetched: counts.fetched += 1
            case .rendered: counts.rendered += 1
            case .failed: counts.failed += 1
            }
            warm = counts
        }
    }

    /// Prepares the counts a cached run reports, so that they appear (as zeros) even when no
    /// row reached the cache; `warm` adds the warm counts.
    public mutating func expectCache(warm isWarm: Bool) {
        cache = cache ?? CacheCounts()
        if isWarm { warm = warm ?? WarmCounts() }
    }

    /// What the run tells of sources it read more than once, and what to do about it; nil
    /// when it read none so.
    public var splitLine: String? {
        guard let splitSources, splitSources > 0 else { return nil }
        return "\(splitSources) \(splitSources == 1 ? "source was" : "sources were") decoded more than once: "
            + "\(splitSources == 1 ? "its" : "their") rows were more than \(SourceWindow.defaultSize) rows apart "
            + "on standard input; sort the manifest by src, or give it as a file"
    }

    /// `118 rows: 117 written, 0 unchanged, 1 failed, 0 cancelled in 5.12 s (23.0 rows/s)`.
    /// A warm run's line says what warming did; a cached run's adds the cache outcomes.
    public var line: String {
        let rate = seconds > 0 ? String(format: " (%.1f rows/s)", Double(rows) / seconds) : ""
        let time = " in \(String(format: "%.2f", seconds)) s\(rate)"
        if let plan {
            return "dry run, nothing touched: \(rows) rows: \(plan.keep) already in place, "
                + "\(plan.reuse) from the cache, \(plan.render) to render, \(plan.fetch) to fetch, "
                + "\(failed) failing" + (pruned.map { ", \($0) to prune" } ?? "") + time
        }
        if let warm {
            return "\(rows) rows: \(warm.fresh) fresh, \(warm.revalidated) revalidated, "
                + "\(warm.fetched) fetched, \(warm.rendered) rendered, \(warm.failed) failed, "
                + "\(cancelled) cancelled" + time
        }
        let cacheText = cache.map {
            "; cache: \($0.hit) hit, \($0.revalidated) revalidated, \($0.miss) miss"
                + ($0.notStored.map { ", \($0) writes refused (the cache is full or read only)" } ?? "")
        } ?? ""
        let droppedText = dropped.map { "\($0) dropped (larger than their fallback), " } ?? ""
        let prunedText = pruned.map { ", \($0) pruned" } ?? ""
        return "\(rows) rows: \(written) written, \(unchanged) unchanged, " + droppedText + "\(failed) failed, "
            + "\(cancelled) cancelled" + prunedText + time + cacheText
    }
}
