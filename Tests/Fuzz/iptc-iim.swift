// sources: Imaging/Metadata/IIMDatasets.swift Imaging/Metadata/ImageRights+IPTC.swift Imaging/Metadata/ImageRights.swift Imaging/Metadata/RightsText.swift Imaging/Metadata/ImageRights+XMP.swift Imaging/Metadata/XMPProperties.swift Imaging/Metadata/XMLScanner.swift Imaging/Metadata/XMLText.swift Imaging/Metadata/ImageRights+EXIF.swift Imaging/Metadata/TIFFBytes.swift
import Foundation

// `ImageRights` is one type over three files; the XMP and EXIF readers are here only so that
// it compiles (they have targets of their own).

/// The IPTC-IIM reader over any bytes, as a source's `iptc-data` may hold them (an APP13
/// payload of Photoshop resources, or bare IIM), and the rights `keep=copyright` takes from it.
///
/// Each dataset read must lie within the input; the APP13 payload written from the rights
/// read must read back with a dataset for every field written, each within IIM's limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIPTCIIM(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let datasets = IIMDatasets.read(bytes)
    precondition(datasets.reduce(0) { $0 + 5 + $1.value.count } <= bytes.count, "datasets longer than the input")
    let rights = ImageRights(iptc: bytes)
    if let block = rights.iptcBlock() {
        let written = IIMDatasets.read(block)
        precondition(written.count >= 2, "the written block lost its datasets")
        precondition(written.allSatisfy { $0.value.count <= 128 }, "a dataset over IIM's limit")
    }
    return 0
}
