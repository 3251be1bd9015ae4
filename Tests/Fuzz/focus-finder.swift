// sources: Imaging/FocusFinder.swift Model/FocusPoint.swift
import Foundation

/// `focus=auto`'s reader over any text: the IPTC Image Region list in an XMP packet and EXIF
/// `SubjectArea` as libvips gives it, for any stored size and orientation.
///
/// The input is a header and then text: two bytes each of stored width and height, one of
/// orientation (0–9), then the XMP packet up to the first NUL and the SubjectArea text after
/// it (none without a NUL). A focus found must lie in the picture: both fractions in [0, 1].
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFocusFinder(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard bytes.count >= 5 else { return 0 }
    let width = Int(bytes[0]) << 8 | Int(bytes[1]), height = Int(bytes[2]) << 8 | Int(bytes[3])
    let orientation = Int(bytes[4]) % 10
    let text = bytes[5...]
    let nul = text.firstIndex(of: 0)
    let xmp = String(decoding: text[..<(nul ?? text.endIndex)], as: UTF8.self)
    let subjectArea = nul.map { String(decoding: text[($0 + 1)...], as: UTF8.self) }
    if let focus = FocusFinder.focus(xmp: xmp, subjectArea: subjectArea, storedWidth: width,
                                     storedHeight: height, orientation: orientation) {
        precondition(focus.isValid, "a focus outside the picture: \(focus)")
    }
    if let region = FocusFinder.region(xmp: xmp, width: width, height: height) {
        precondition(region.isValid, "a region's centre outside the picture: \(region)")
    }
    return 0
}
