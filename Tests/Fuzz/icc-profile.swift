// sources: Imaging/ICCTagTable.swift Imaging/SRGBProfile.swift
import Foundation

/// The ICC profile reader over any bytes, as a source image may embed them: `ICCTagTable`'s
/// header and tag table, each XYZ and tone-curve tag read the ways `SRGBProfile` reads them, and
/// the whole sRGB judgement. A short or lying profile must give nil or false, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICCProfile(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    if let tags = ICCTagTable(bytes) {
        _ = (tags.colourSpace, tags.connectionSpace, tags.deviceClass)
        for name in tags.names {
            if let xyz = tags.xyz(name) { precondition(xyz.count == 3, "an XYZ tag of \(xyz.count) values") }
            if let curve = tags.curve(name) {
                for code in [0, 1, 64, 128, 254, 255] { _ = curve.linear(Double(code) / 255) }
            }
        }
    }
    _ = SRGBProfile.matches(bytes)
    return 0
}
