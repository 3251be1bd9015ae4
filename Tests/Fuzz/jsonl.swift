// sources: Reading/JSONLinesParser.swift Reading/ByteChunks.swift Support/Cancellation.swift Reading/ManifestRecord.swift Reading/ManifestError.swift Reading/ManifestColumn.swift Reading/String+Trimming.swift
import Foundation

/// The JSON Lines parser over any bytes, read in small chunks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONLines(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let pipe = Pipe()
    pipe.fileHandleForWriting.write(Data(bytes: start, count: count))
    try? pipe.fileHandleForWriting.close()
    let parser = JSONLinesParser(chunks: ByteChunks(handle: pipe.fileHandleForReading, chunkSize: 7))
    while let entry = try? parser.next() { _ = entry }
    return 0
}
