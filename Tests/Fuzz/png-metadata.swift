// sources: Imaging/PNGMetadata.swift
import Foundation

/// The PNG metadata stripper over any bytes: it must return nil or a PNG, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNGMetadata(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    if let stripped = PNGMetadata.stripped(data) {
        precondition(PNGMetadata.stripped(stripped) == stripped, "not idempotent")
    }
    return 0
}
