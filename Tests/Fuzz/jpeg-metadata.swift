// sources: Imaging/JPEGMetadata.swift
import Foundation

/// The JPEG metadata stripper over any bytes: it must return nil or a JPEG, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGMetadata(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let stripped = JPEGMetadata.stripped(data) {
        // Stripping what is stripped changes nothing.
        precondition(JPEGMetadata.stripped(stripped) == stripped, "not idempotent")
    }
    return 0
}
