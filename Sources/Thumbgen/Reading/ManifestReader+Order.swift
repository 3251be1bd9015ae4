import Foundation

extension ManifestReader {
    /// What the first pass over a manifest file learns.
    struct Scan {
        /// The records' run order.
        var order: SourceOrder
        /// What stopped the pass before the end of the file (the records before it run).
        var error: ManifestError?
        /// The SHA-256 of the whole file, when asked for.
        var digest: ManifestDigest?
    }

    /// Reads the manifest at `path` once, through its own handle, noting where each record
    /// `keeps` keeps starts and which source it names. Only the `src` cell of a CSV record is made
    /// into text. Throws what makes the file unreadable from its start, and when `stop` is
    /// pressed meanwhile.
    static func scan(path: String, jsonLines: Bool, keeps: ((String?) -> Bool)?, stop: Cancellation?,
                     hashing: Bool) throws(ManifestError) -> Scan {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(path: path, reason: "permission denied or not a file")
        }
        defer { try? handle.close() }
        let chunks = ByteChunks(handle: handle, chunkSize: 1 << 20, stop: stop)
        var scan = Scan(order: SourceOrder())
        var info = stat()
        if fstat(handle.fileDescriptor, &info) == 0 { scan.order.fileSize = Int(info.st_size) }
        if hashing {
            let digest = ManifestDigest()
            chunks.onChunk = { digest.hasher.update(data: $0) }
            scan.digest = digest
        }
        if jsonLines {
            let parser = JSONLinesParser(chunks: chunks)
            do {
                while let entry = try parser.next() {
                    let (line, source) = entry.lineAndSource
                    if let keeps, !keeps(source) { continue }
                    scan.order.add(offset: parser.recordOffset, line: line, source: source)
                }
            } catch {
                scan.error = .unreadable(path: path, reason: "\(error)")
            }
        } else {
            let parser = CSVRecordParser(chunks: chunks)
            let columns = try readHeader(parser, path: path)
            // `readHeader` makes sure there is one.
            let column = columns.firstIndex(of: .src) ?? 0
            parser.onlyField = column
            do {
                while let record = try parser.next() {
                    // As `ManifestReader.next` gives the record: no `src` for an empty cell, nor
                    // for a record with more fields than the header (a row error).
                    let fits = record.fields.count <= columns.count && column < record.fields.count
                    let source = fits && !record.fields[column].isEmpty ? record.fields[column] : nil
                    if let keeps, !keeps(source) { continue }
                    scan.order.add(offset: parser.recordOffset, line: record.line, source: source)
                }
            } catch CSVParseError.unterminatedQuote(let line) {
                scan.error = .unterminatedQuote(path: path, line: line)
            } catch {
                scan.error = .unreadable(path: path, reason: "\(error)")
            }
        }
        if stop?.isCancelled == true { throw .unreadable(path: path, reason: "interrupted") }
        scan.order.finish()
        return scan
    }
}

extension Result<ManifestRecord, RowError> {
    /// The entry's line and its `src` cell (nil for a row error, or a record without one).
    var lineAndSource: (line: Int, source: String?) {
        switch self {
        case .success(let record): (record.line, record.values[.src])
        case .failure(let error): (error.row, nil)
        }
    }
}
