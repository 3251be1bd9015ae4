// sources: Imaging/Metadata/EXIFFilter.swift Imaging/Metadata/TIFFBytes.swift Imaging/Metadata/ByteRanges.swift Imaging/Metadata/ImageRights+EXIF.swift Imaging/Metadata/ImageRights.swift Imaging/Metadata/RightsText.swift Imaging/Metadata/ImageRights+XMP.swift Imaging/Metadata/XMPProperties.swift Imaging/Metadata/XMLScanner.swift Imaging/Metadata/XMLText.swift Imaging/Metadata/ImageRights+IPTC.swift Imaging/Metadata/IIMDatasets.swift
import Foundation

// `ImageRights` is one type over three files; the EXIF and IPTC readers are here only so that
// it compiles (they have targets of their own).

/// The XMP reader over any bytes, as a source's `xmp-data` may hold them: `XMLScanner`'s events,
/// `XMPProperties` over them, and the rights `keep=copyright` takes from them.
///
/// The scanner's events must nest (an end never without an open start, no deeper than its
/// cap), and the packet written from the rights read must scan the same way and give back
/// whether the picture is rights-managed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMPRights(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    checkNesting(bytes)
    let rights = ImageRights(xmp: bytes)
    if let packet = rights.xmpPacket() {
        checkNesting(packet)
        precondition(ImageRights(xmp: packet).marked == rights.marked, "xmpRights:Marked does not read back")
    }
    return 0
}

/// Traps unless the events of `document` nest within `XMLScanner.maximumDepth`.
func checkNesting(_ document: [UInt8]) {
    var depth = 0
    for event in XMLScanner.events(document) {
        switch event {
        case .start: depth += 1
        case .end: depth -= 1
        case .text: continue
        }
        precondition(depth >= 0, "an end without a start")
        precondition(depth <= XMLScanner.maximumDepth, "nested deeper than the cap")
    }
}
