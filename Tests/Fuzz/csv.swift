// sources: Reading/CSVRecordParser.swift Reading/ByteChunks.swift Support/Cancellation.swift
import Foundation

/// The CSV record parser over any bytes, read in small chunks so that records, quotes and
/// CRLFs straddle them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let pipe = Pipe()
    pipe.fileHandleForWriting.write(Data(bytes: start, count: count))
    try? pipe.fileHandleForWriting.close()
    let parser = CSVRecordParser(chunks: ByteChunks(handle: pipe.fileHandleForReading, chunkSize: 7))
    var line = 0
    while let record = try? parser.next() {
        precondition(record.line > line, "line numbers go back")
        line = record.line
    }
    return 0
}
