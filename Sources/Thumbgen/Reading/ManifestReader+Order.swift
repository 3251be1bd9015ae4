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

    /// Where a CSV manifest's records start (after its header: the byte and the line), how
    /// many columns its header has and which is `src`.
    struct CSVStart {
        var offset: Int, line: Int, columns: Int, sourceField: Int
    }

    /// Reads the manifest at `path` once, through its own handle, noting where each record
    /// `keeps` keeps starts and which source it names: a CSV file (`csv` says where its
    /// records start) by `CSVSourceScanner`, which makes no cell into text; a JSON Lines file
    /// by its parser. Throws when `stop` is pressed meanwhile; an error in the file ends the
    /// pass, to be thrown after its records.
    static func scan(path: String, csv: CSVStart?, keeps: ((String?) -> Bool)?,
                     stop: Cancellation?, hashing: Bool) throws(ManifestError) -> Scan {
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
        if let csv {
            // The bytes before `csv.offset` (the header) are read for the digest only.
            var scanner = CSVSourceScanner(sourceField: csv.sourceField, columns: csv.columns,
                                           offset: csv.offset, line: csv.line)
            var read = 0
            func found(_ record: CSVSourceScanner.Found) {
                if let keeps, !keeps(record.source.map { CellText.decode($0).text }) { return }
                scan.order.add(offset: record.offset, line: record.line, sourceBytes: record.source)
            }
            do {
                while let chunk = try chunks.next() {
                    defer { read += chunk.count }
                    let skip = max(0, min(chunk.count, csv.offset - read))
                    chunk.withUnsafeBytes { scanner.scan(UnsafeRawBufferPointer(rebasing: $0[skip...]), found) }
                }
                try scanner.finish(found)
            } catch CSVParseError.unterminatedQuote(let line) {
                scan.error = .unterminatedQuote(path: path, line: line)
            } catch {
                scan.error = .unreadable(path: path, reason: "\(error)")
            }
        } else {
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
