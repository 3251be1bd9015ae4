import Foundation

/// How `thumbgen cache` shows its results: a table or a JSON object for `stats`, one line for
/// the others (as `RunSummary.line` does for a run). Kept beside the results rather than in
/// the command-line target, so that a program using the library prints the same thing.
extension CacheMaintenance.Stats: Encodable {
    private enum Key: String, CodingKey {
        case directory, entries, bytes, runs, blobs, outputs, urls, files, recipes, total
        case oldestUse = "oldest_use", newestUse = "newest_use"
    }

    /// `directory`, `entries` {blobs, outputs, urls, files, recipes}, `bytes` {the same and `total`},
    /// `oldest_use`, `newest_use` (ISO 8601, null when the cache is empty) and `runs`.
    public func encode(to encoder: any Encoder) throws {
        var top = encoder.container(keyedBy: Key.self)
        try top.encode(directory.path, forKey: .directory)
        var counts = top.nestedContainer(keyedBy: Key.self, forKey: .entries)
        var sizes = top.nestedContainer(keyedBy: Key.self, forKey: .bytes)
        // Each kind's key is its folder's name.
        for kind in CacheLayout.Kind.allCases {
            guard let key = Key(rawValue: kind.rawValue) else { continue }
            try counts.encode(entries[kind], forKey: key)
            try sizes.encode(bytes[kind], forKey: key)
        }
        try sizes.encode(bytes.total, forKey: .total)
        try top.encode(oldestUse.map(CacheMaintenance.text(time:)), forKey: .oldestUse)
        try top.encode(newestUse.map(CacheMaintenance.text(time:)), forKey: .newestUse)
        try top.encode(runs, forKey: .runs)
    }

    /// The JSON object, keys sorted, for `cache stats --json`.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// A table for people: entries and bytes per kind, the range of last uses, and the
    /// newest `shownRuns` runs with their hit rates.
    public func table(shownRuns: Int = 10) -> String {
        let widths = [10, 9, 12]
        var lines = ["cache: \(directory.path)", CacheMaintenance.columns(["kind", "entries", "bytes"], widths)]
        for kind in CacheLayout.Kind.allCases {
            lines.append(CacheMaintenance.columns(
                [kind.rawValue, String(entries[kind]), CacheMaintenance.text(bytes: bytes[kind])], widths))
        }
        lines.append(CacheMaintenance.columns(
            ["total", String(entries.total), CacheMaintenance.text(bytes: bytes.total)], widths))
        if let oldestUse, let newestUse {
            lines.append("last used: oldest \(CacheMaintenance.text(time: oldestUse)), "
                         + "newest \(CacheMaintenance.text(time: newestUse))")
        }
        guard !runs.isEmpty else { return (lines + ["no runs on record"]).joined(separator: "\n") }
        let runWidths = [21, 8, 7, 7, 7, 12, 7, 9, 9]
        lines.append("")
        lines.append("recent runs, newest last:")
        let headings = ["ended", "command", "rows", "hit", "miss", "revalidated", "failed", "hit rate", "seconds"]
        lines.append(CacheMaintenance.columns(headings, runWidths, names: 2))
        for run in runs.suffix(shownRuns) {
            let rate = run.hitRate.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
            lines.append(CacheMaintenance.columns(
                [CacheMaintenance.text(time: Date(timeIntervalSince1970: run.endedAt)), run.command,
                 String(run.rows), String(run.hit), String(run.miss), String(run.revalidated),
                 String(run.failed), rate, String(format: "%.2f", run.seconds)], runWidths, names: 2))
        }
        let remoteRuns = runs.suffix(shownRuns).filter { $0.remote != nil }
        if !remoteRuns.isEmpty {
            lines.append("")
            lines.append("remote cache, runs that had one:")
            let remoteWidths = [21, 8, 7, 7, 9, 8, 8, 7]
            lines.append(CacheMaintenance.columns(
                ["ended", "command", "hit", "miss", "rejected", "upload", "dropped", "failed"], remoteWidths, names: 2))
            for run in remoteRuns {
                guard let r = run.remote else { continue }
                let ended = CacheMaintenance.text(time: Date(timeIntervalSince1970: run.endedAt))
                let counts: [Int] = [r.hit, r.miss, r.rejected, r.upload, r.dropped, r.failed]
                lines.append(CacheMaintenance.columns([ended, run.command] + counts.map(String.init),
                                                      remoteWidths, names: 2))
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension RemoteCacheCounts: Encodable {
    private enum Key: String, CodingKey {
        case hit, miss, rejected, upload, dropped, failed
    }

    /// `{hit, miss, rejected, upload, dropped, failed}`, as `cache stats --json` gives a run's.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in [(Key.hit, hit), (.miss, miss), (.rejected, rejected), (.upload, upload),
                             (.dropped, dropped), (.failed, failed)] {
            try container.encode(value, forKey: key)
        }
    }
}

extension RunLog.Entry: Encodable {
    private enum Key: String, CodingKey {
        case command, rows, hit, miss, revalidated, failed, seconds, remote
        case endedAt = "ended_at", hitRate = "hit_rate"
    }

    /// The run as `cache stats --json` lists it; `hit_rate` is null when no row reached the cache.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(command, forKey: .command)
        let ended = Date(timeIntervalSince1970: endedAt)
        try container.encode(CacheMaintenance.text(time: ended), forKey: .endedAt)
        let counts = [(Key.rows, rows), (.hit, hit), (.miss, miss), (.revalidated, revalidated), (.failed, failed)]
        for (key, value) in counts {
            try container.encode(value, forKey: key)
        }
        try container.encode(seconds, forKey: .seconds)
        try container.encode(hitRate, forKey: .hitRate)
        try container.encode(remote, forKey: .remote)
    }
}

extension CacheMaintenance.PruneResult {
    /// `pruned 5 entries (2 blobs, 2 outputs, 0 urls, 1 files) and 1 temporary files; freed 1.2 MiB, 3.4 MiB left`.
    public var line: String {
        "pruned \(removed.total) entries (\(CacheMaintenance.text(removed))) and \(temporary) temporary files; "
            + "freed \(CacheMaintenance.text(bytes: freed)), \(CacheMaintenance.text(bytes: remaining)) left"
    }
}

extension CacheMaintenance.VerifyResult {
    /// `checked 12 entries (6 blobs, 3 outputs, 0 urls, 3 files); removed 1 (1 blobs, 0 outputs, 0 urls, 0 files)`.
    public var line: String {
        "checked \(checked.total) entries (\(CacheMaintenance.text(checked))); "
            + "removed \(removed.total) (\(CacheMaintenance.text(removed)))"
    }
}

extension CacheMaintenance.ClearResult {
    /// `cleared 14 files, 1.2 MiB`.
    public var line: String { "cleared \(files) files, \(CacheMaintenance.text(bytes: bytes))" }
}

extension CacheMaintenance {
    /// `2 blobs, 2 outputs, 0 urls, 1 files`.
    static func text(_ counts: PerKind<Int>) -> String {
        CacheLayout.Kind.allCases.map { "\(counts[$0]) \($0.rawValue)" }.joined(separator: ", ")
    }

    /// `812 B`, `1.5 KiB`, `2.0 GiB`: powers of 1024, as `prune --max-size` reads them.
    static func text(bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(bytes)
        var unit = 0
        while abs(value) >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// `2026-11-22T05:20:01Z`.
    static func text(time: Date) -> String {
        time.formatted(.iso8601)
    }

    /// Cells padded to `widths`: the first `names` left-aligned, the rest (numbers) right-aligned.
    static func columns(_ cells: [String], _ widths: [Int], names: Int = 1) -> String {
        zip(cells, widths).enumerated().map { index, pair in
            let padding = String(repeating: " ", count: max(0, pair.1 - pair.0.count))
            return index < names ? pair.0 + padding : padding + pair.0
        }.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
