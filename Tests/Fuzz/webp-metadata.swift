// sources: Imaging/WebPMetadata.swift
import Foundation

/// The WebP metadata strippers over any bytes: never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebPMetadata(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    _ = WebPMetadata.stripped(data)
    _ = WebPMetadata.strictlyStripped(data)
    return 0
}
