// sources: Imaging/PNGPreflight.swift
import Foundation

/// The PNG chunk walk before libpng, over any file: never trap, never read past the end.
let scratch = FileManager.default.temporaryDirectory
    .appendingPathComponent("thumbgen-fuzz-preflight-\(getpid()).png").path

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNGPreflight(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FileManager.default.createFile(atPath: scratch, contents: Data(bytes: start, count: count))
    _ = PNGPreflight.problem(path: scratch)
    return 0
}
