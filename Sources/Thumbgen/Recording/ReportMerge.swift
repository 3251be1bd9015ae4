import Foundation

/// `thumbgen report merge`: joins the reports of every shard of a manifest into the report
/// one process would have written: the rows in manifest order, the summary counted again from
/// them. Only the times differ: `seconds` is the slowest shard's, `cpu_seconds` their sum.
///
/// The reports are checked against each other before a row is read: the same manifest (by
/// its SHA-256), the same number of shards, each shard once, none missing, the same kind of
/// run. The rows are merged as they are read, a row from each report at a time; only a hash
/// of each written output's path is kept, for the shared-path warning.
public enum ReportMerge {
    /// What a merge found besides the merged report.
    public struct Outcome: Sendable {
        /// The merged summary.
        public var summary: RunSummary
        /// Rows whose `out` an earlier row of another shard also wrote (two shards wrote one
        /// path; a single process would have failed the later row `output_conflict`).
        public var sharedPaths: [(row: Int, out: String)] = []
    }

    /// Merges the reports at `inputs` into `output`, and writes the contact sheet `html`
    /// (showing outputs under `outputDirectory`) when asked.
    public static func merge(_ inputs: [String], into output: String, html: String? = nil,
                             outputDirectory: URL) throws(ReportMergeError) -> Outcome {
        let readers = try inputs.map { path throws(ReportMergeError) in try ReportReader(path: path) }
        let stamp = try check(readers)
        let stream: ReportStream
        do {
            stream = try ReportStream(destination: URL(fileURLWithPath: output))
        } catch {
            throw .unwritable(output)
        }
        var sheet: ContactSheet?
        do {
            sheet = try html.map { try ContactSheet(destination: URL(fileURLWithPath: $0), outputDirectory: outputDirectory) }
        } catch {
            stream.abandon()
            throw .unwritable(html ?? "")
        }
        do throws(ReportMergeError) {
            var outcome = try mergeRows(readers, into: stream, sheet: sheet)
            outcome.summary.seconds = readers.map(\.tail.summary.seconds).max() ?? 0
            outcome.summary.cpuSeconds = (readers.map(\.tail.summary.cpuSeconds).reduce(0, +) * 1000).rounded() / 1000
            if readers.contains(where: { $0.tail.summary.cache != nil }) {
                outcome.summary.expectCache(warm: readers.contains { $0.tail.summary.warm != nil })
                // Refused cache writes are counted by each run, not by its rows.
                let refused = readers.compactMap { $0.tail.summary.cache?.notStored }.reduce(0, +)
                if refused > 0 { outcome.summary.cache?.notStored = refused }
            }
            outcome.summary.roundTotals()
            // What each shard pruned is its own: the merge lists them all, by path.
            let prunes = readers.compactMap(\.tail.pruned)
            let pruned = prunes.isEmpty ? nil : prunes.joined().sorted { $0.path < $1.path }
            outcome.summary.pruned = pruned?.count
            do {
                try stream.finish(summary: outcome.summary, merged: stamp, pruned: pruned)
            } catch {
                throw ReportMergeError.unwritable(output)
            }
            do {
                try sheet?.finish(summary: outcome.summary)
            } catch {
                throw ReportMergeError.unwritable(html ?? "")
            }
            return outcome
        } catch {
            stream.abandon()
            throw error
        }
    }

    /// Checks that `readers` are every shard of one manifest, once each, of one kind of run.
    private static func check(_ readers: [ReportReader]) throws(ReportMergeError) -> ReportMerged {
        var byIndex: [Int: ReportReader] = [:]
        var seenKind: (path: String, kind: String)?
        guard let first = readers.first else { throw .missingShards([], 0) }
        guard let reference = first.tail.shard else { throw .notAShard(first.path) }
        for reader in readers {
            guard let shard = reader.tail.shard else { throw .notAShard(reader.path) }
            guard shard.manifestSHA256 == reference.manifestSHA256 else {
                throw .differentManifests(first.path, reader.path)
            }
            guard shard.count == reference.count else {
                throw .differentCounts(first.path, reference.count, reader.path, shard.count)
            }
            if let other = byIndex[shard.index] { throw .sameShard(shard.index, other.path, reader.path) }
            byIndex[shard.index] = reader
            if let kind = kind(of: reader) {
                if let seenKind, seenKind.kind != kind {
                    throw .differentRuns(seenKind.path, seenKind.kind, reader.path, kind)
                }
                seenKind = seenKind ?? (reader.path, kind)
            }
        }
        let missing = (0..<reference.count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else { throw .missingShards(missing, reference.count) }
        return ReportMerged(count: reference.count, manifestSHA256: reference.manifestSHA256)
    }

    /// `warm`, a dry run or a render run, from the summary's shape; nil when it cannot tell (a
    /// dry run is told by its `plan` counts, which a shard with no row lacks).
    private static func kind(of reader: ReportReader) -> String? {
        let summary = reader.tail.summary
        if summary.warm != nil { return "warm" }
        if summary.plan != nil { return "a dry run" }
        return summary.rows == 0 ? nil : "a render run"
    }

    /// Writes the rows of every reader in row order; counts them, and notes paths two shards
    /// wrote.
    private static func mergeRows(_ readers: [ReportReader], into stream: ReportStream,
                                  sheet: ContactSheet?) throws(ReportMergeError) -> Outcome {
        var heads = try readers.map { reader throws(ReportMergeError) in try reader.next() }
        var outcome = Outcome(summary: RunSummary())
        var written = Set<Int>()
        var last: (row: Int, path: String)?
        while let (slot, head) = heads.enumerated()
            .compactMap({ entry in entry.element.map { (entry.offset, $0) } })
            .min(by: { $0.1.result.row < $1.1.result.row }) {
            let result = head.result
            let path = readers[slot].path
            if let last, last.row == result.row { throw .rowTwice(result.row, last.path, path) }
            if let last, last.row > result.row {
                throw .notAReport(path, "its rows are not in manifest order (row \(result.row) after \(last.row))")
            }
            last = (result.row, path)
            outcome.summary.count(result)
            if let out = result.out, result.status == .written || result.status == .unchanged,
               !written.insert(out.hashValue).inserted {
                outcome.sharedPaths.append((result.row, out))
            }
            stream.expect(line: result.row)
            do {
                try stream.add(row: result.row, record: [UInt8](head.record)[...])
            } catch {
                throw .unwritable("the merged report")
            }
            sheet?.add(result)
            heads[slot] = try readers[slot].next()
        }
        return outcome
    }
}
