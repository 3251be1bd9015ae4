import Crypto
import Foundation

/// Streams a manifest (CSV with a header row, or JSON Lines) one record at a time.
///
/// Opened `bySource`, a manifest file is read twice: a first pass notes where each record
/// starts and which source it names (`SourceOrder`), and `next()` then returns the records
/// source by source, each source's records together, the sources in the order of their
/// first records, so that a source's rows share one decode whatever order the manifest is in.
/// Standard input, which cannot be read twice, is never regrouped here (`SourceWindow`).
///
/// Otherwise memory does not grow with the manifest's length: nothing is kept once a record
/// is returned. A record with its own problem (bad JSON, too many fields, unknown key) comes
/// back as a `RowError` so that the run goes on; a problem with the file as a whole throws.
public final class ManifestReader {
    /// The manifest's path as given (`-` for standard input).
    public let path: String
    /// The folder that relative `src` paths are resolved against.
    public let baseDirectory: String
    private let source: Input

    private enum Input {
        case csv(CSVRecordParser, columns: [ManifestColumn])
        case jsonLines(JSONLinesParser)
    }

    /// Opens `path` (`-` reads standard input as CSV unless `jsonLines` says otherwise); the
    /// format is JSON Lines for `.jsonl` and `.ndjson` files, CSV otherwise. Once `stop` is
    /// pressed the manifest reads as ended, even while its input is open and silent.
    /// `hashing` keeps the SHA-256 of the bytes read (`sha256`). `bySource` reads a regular
    /// file's records source by source (above). Only the records whose `src` cell (nil: none,
    /// or unreadable) `keeps` keeps (a shard's) are returned.
    public init(path: String, jsonLines: Bool? = nil, stop: Cancellation? = nil,
                hashing: Bool = false, bySource: Bool = false,
                keeps: ((String?) -> Bool)? = nil) throws(ManifestError) {
        self.path = path
        self.keeps = keeps
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
            baseDirectory = FileManager.default.currentDirectoryPath
        } else {
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                  !isDirectory.boolValue else {
                throw .unreadable(path: path, reason: "no such file")
            }
            do {
                handle = try FileHandle(forReadingFrom: url)
            } catch {
                throw .unreadable(path: path, reason: "permission denied or not a file")
            }
            baseDirectory = url.deletingLastPathComponent().standardizedFileURL.path
        }
        let ext = (path as NSString).pathExtension.lowercased()
        let isJSONLines = jsonLines ?? (ext == "jsonl" || ext == "ndjson")
        let chunks = ByteChunks(handle: handle, stop: stop)
        var info = stat()
        let readsTwice = bySource && path != "-" && fstat(handle.fileDescriptor, &info) == 0
            && (info.st_mode & S_IFMT) == S_IFREG
        if hashing && !readsTwice {
            let digest = ManifestDigest()
            chunks.onChunk = { digest.hasher.update(data: $0) }
            self.digest = digest
        }
        self.chunks = chunks
        if isJSONLines {
            source = .jsonLines(JSONLinesParser(chunks: chunks))
        } else {
            let parser = CSVRecordParser(chunks: chunks)
            source = .csv(parser, columns: try Self.readHeader(parser, path: path))
        }
        if readsTwice {
            var csv: CSVStart?
            if case .csv(let parser, let columns) = source {
                let next = parser.nextByte
                csv = CSVStart(offset: next.offset, line: next.line, columns: columns.count,
                               sourceField: columns.firstIndex(of: .src) ?? 0)
            }
            let scan = try Self.scan(path: path, csv: csv, keeps: keeps, stop: stop,
                                     hashing: hashing)
            recordCount = scan.order.count
            // A manifest that keeps its sources together is read on as it comes, holding
            // nothing (its error comes again where the first pass met it).
            if !scan.order.isManifestOrder {
                order = scan.order
                orderError = scan.error
                regroups = true
            }
            if let digest = scan.digest { self.digest = digest }
        }
    }

    /// Which records are returned, by their `src` cell (nil: all).
    private let keeps: ((String?) -> Bool)?

    /// The run order of a manifest read `bySource`; nil when it is read as it comes.
    private var order: SourceOrder?
    /// How many records of `order` were returned.
    private var returned = 0
    /// What ended the first pass early, thrown once the records before it are returned.
    private var orderError: ManifestError?

    /// Whether `next()` returns the records source by source, in another order than the
    /// manifest's (read `bySource`, and the manifest did not keep its sources together).
    public private(set) var regroups = false

    /// Never called: the lines of a whole file, announced at once, would cost the report 8
    /// bytes a row twice over, where its records sorted at the end cost nothing more
    /// (`WaitingRecords`).
    public var onRead: ((Int) -> Void)?

    /// Whether the next record can be read without waiting for the input (much of it: a
    /// record cut by a pipe's chunk may still wait for its end).
    var isReady: Bool {
        switch source {
        case .csv(let parser, _): parser.isReady
        case .jsonLines(let parser): parser.isReady
        }
    }

    /// Always 0: a file read `bySource` is regrouped whole.
    public var splitSources: Int { 0 }

    /// How many records the first pass found (this shard's only); nil without one.
    public private(set) var recordCount: Int?

    private let chunks: ByteChunks

    /// The SHA-256, in hex, of the bytes read so far (all of them once `next()` returned nil);
    /// nil unless the reader was opened `hashing`.
    public var sha256: String? {
        digest.map { ContentDigest.hex($0.hasher.finalize()) }
    }

    private var digest: ManifestDigest?

    /// The running hash, shared with the chunk reader's callback.
    final class ManifestDigest {
        var hasher = SHA256()
    }

    /// Called whenever the input has nothing to read right now (a pipe whose writer is slow),
    /// before the reader waits: what was read so far can be started.
    public var onWait: (() -> Void)? {
        get { chunks.onWait }
        set { chunks.onWait = newValue }
    }

    /// The next record or row error; nil at the end of the manifest.
    public func next() throws(ManifestError) -> Result<ManifestRecord, RowError>? {
        guard regroups else {
            // The first pass kept only these records in its order; read as they come, they
            // are sorted here.
            while let entry = try nextInFile() {
                if let keeps, !keeps(entry.lineAndSource.source) { continue }
                return entry
            }
            return nil
        }
        guard let order, returned < order.count else {
            // Let go of the order (16 bytes a record) before the report is put in order.
            self.order = nil
            if let orderError { throw orderError }
            return nil
        }
        let (offset, line) = order.record(running: returned)
        returned += 1
        switch source {
        case .csv(let parser, _): parser.seek(to: offset, line: line)
        case .jsonLines(let parser): parser.seek(to: offset, line: line)
        }
        return try nextInFile()
    }

    /// The record that starts where the file is read now.
    private func nextInFile() throws(ManifestError) -> Result<ManifestRecord, RowError>? {
        switch source {
        case .jsonLines(let parser):
            do {
                return try parser.next()
            } catch {
                throw .unreadable(path: path, reason: "\(error)")
            }
        case .csv(let parser, let columns):
            let record: CSVRecordParser.Record?
            do {
                record = try parser.next()
            } catch CSVParseError.unterminatedQuote(let line) {
                throw .unterminatedQuote(path: path, line: line)
            } catch {
                throw .unreadable(path: path, reason: "\(error)")
            }
            guard let record else { return nil }
            guard record.fields.count <= columns.count else {
                return .failure(RowError(
                    row: record.line,
                    reason: "has \(record.fields.count) fields but the header has \(columns.count)"))
            }
            var values: [ManifestColumn: String] = [:]
            for (column, value) in zip(columns, record.fields) where !value.isEmpty {
                values[column] = value
            }
            return .success(ManifestRecord(line: record.line, values: values,
                                           invalidColumns: record.invalid.map { columns[$0] }))
        }
    }

    static func readHeader(_ parser: CSVRecordParser, path: String)
        throws(ManifestError) -> [ManifestColumn]
    {
        let header: CSVRecordParser.Record?
        do {
            header = try parser.next()
        } catch {
            throw .unterminatedQuote(path: path, line: 1)
        }
        guard let header else { throw .empty(path: path) }
        var columns: [ManifestColumn] = []
        for name in header.fields {
            guard let column = ManifestColumn(header: name) else {
                throw .unknownColumn(path: path, column: name)
            }
            guard !columns.contains(column) else {
                throw .duplicateColumn(path: path, column: name)
            }
            columns.append(column)
        }
        guard columns.contains(.src) else { throw .missingSourceColumn(path: path) }
        return columns
    }
}
