import Crypto
import Foundation

/// Streams a manifest (CSV with a header row, or JSON Lines) one record at a time.
///
/// Memory does not grow with the manifest's length: nothing is kept once a record is returned.
/// A record with its own problem (bad JSON, too many fields, unknown key) comes back as a
/// `RowError` so that the run goes on; a problem with the file as a whole throws.
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
    /// `hashing` keeps the SHA-256 of the bytes read (`sha256`).
    public init(path: String, jsonLines: Bool? = nil, stop: Cancellation? = nil,
                hashing: Bool = false) throws(ManifestError) {
        self.path = path
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
        let chunks = ByteChunks(handle: handle, stop: stop)
        if hashing {
            let digest = ManifestDigest()
            chunks.onChunk = { digest.hasher.update(data: $0) }
            self.digest = digest
        }
        self.chunks = chunks
        if jsonLines ?? (ext == "jsonl" || ext == "ndjson") {
            source = .jsonLines(JSONLinesParser(chunks: chunks))
        } else {
            let parser = CSVRecordParser(chunks: chunks)
            source = .csv(parser, columns: try Self.readHeader(parser, path: path))
        }
    }

    private let chunks: ByteChunks

    /// The SHA-256, in hex, of the bytes read so far (all of them once `next()` returned nil);
    /// nil unless the reader was opened `hashing`.
    public var sha256: String? {
        digest.map { ContentDigest.hex($0.hasher.finalize()) }
    }

    private var digest: ManifestDigest?

    /// The running hash, shared with the chunk reader's callback.
    private final class ManifestDigest {
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

    private static func readHeader(_ parser: CSVRecordParser, path: String)
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
