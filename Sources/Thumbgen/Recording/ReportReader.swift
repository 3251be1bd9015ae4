import Foundation

/// Reads back a report as `ReportStream` writes it, one row at a time, in constant memory:
/// the head line, one record per line, then a last line from `],` holding `summary` (and
/// `shard` or `merged`). `thumbgen report merge` reads shard reports with it.
public final class ReportReader {
    /// The file's path, as given (errors name it).
    public let path: String
    /// What follows the rows: read first, from the file's end.
    public let tail: Tail
    private let handle: FileHandle
    private var buffer = Data()
    /// Where the unread part of `buffer` starts.
    private var position = 0
    private var atEnd = false
    private var rowsDone = false
    private let decoder = JSONDecoder()

    /// The part of a report after its rows.
    public struct Tail: Decodable, Sendable {
        /// The run's counts.
        public var summary: RunSummary
        /// The shard the run covered (a `--shard` run).
        public var shard: ReportShard?
        /// The shards a merged report joins.
        public var merged: ReportMerged?
        /// The files the run's `--prune` removed (nil without one).
        public var pruned: [PlacedFile]?
    }

    /// The report's first line: schema 1, as `ReportStream` starts it.
    static let head = Data("{\"schema\":1,\"rows\":[".utf8)

    /// Opens the report at `path` and reads its tail.
    public init(path: String) throws(ReportMergeError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable(path) }
        self.handle = handle
        do {
            let size = try handle.seekToEnd()
            // The tail is short, unless a prune listed many files: read back until its start.
            var window: UInt64 = 1 << 16
            var end = Data()
            var found: Range<Data.Index>?
            while found == nil {
                try handle.seek(toOffset: size > window ? size - window : 0)
                end = try handle.readToEnd() ?? Data()
                found = end.range(of: Data("\n],".utf8), options: .backwards)
                if window >= size { break }
                window *= 4
            }
            guard let close = found else {
                throw ReportMergeError.notAReport(path, "no summary at its end (cut short?)")
            }
            tail = try decoder.decode(Tail.self, from: Data("{".utf8) + end[close.upperBound...])
            try handle.seek(toOffset: 0)
        } catch let error as ReportMergeError {
            throw error
        } catch {
            throw .notAReport(path, "its summary does not read as schema 1 (\(error))")
        }
        guard let first = try nextLine(), first == Self.head else {
            throw .notAReport(path, "it does not start as a thumbgen report of schema 1")
        }
    }

    /// The next row: its record as the file holds it (one line of compact JSON) and decoded;
    /// nil after the last.
    public func next() throws(ReportMergeError) -> (record: Data, result: RowResult)? {
        guard !rowsDone, var line = try nextLine() else { return nil }
        if line.first == UInt8(ascii: "]") {
            rowsDone = true
            return nil
        }
        if line.last == UInt8(ascii: ",") { line.removeLast() }
        do {
            return (line, try decoder.decode(RowResult.self, from: line))
        } catch {
            throw .notAReport(path, "a row does not read as a report record: \(String(decoding: line.prefix(120), as: UTF8.self))")
        }
    }

    /// The next line, without its newline; nil at the end of the file.
    private func nextLine() throws(ReportMergeError) -> Data? {
        while true {
            if let newline = buffer[position...].firstIndex(of: 0x0A) {
                defer { position = newline + 1 }
                return Data(buffer[position..<newline])
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                defer { position = buffer.count }
                return Data(buffer[position...])
            }
            do {
                let chunk = try handle.read(upToCount: 1 << 16) ?? Data()
                // What was read is dropped only now, a chunk at a time.
                buffer = Data(buffer[position...])
                position = 0
                if chunk.isEmpty { atEnd = true } else { buffer.append(chunk) }
            } catch {
                throw .unreadable(path)
            }
        }
    }
}
