// sources: Imaging/Metadata/EXIFFilter.swift Imaging/Metadata/TIFFBytes.swift Imaging/Metadata/ByteRanges.swift Imaging/Metadata/ImageRights+EXIF.swift Imaging/Metadata/ImageRights.swift Imaging/Metadata/RightsText.swift Imaging/Metadata/ImageRights+XMP.swift Imaging/Metadata/XMPProperties.swift Imaging/Metadata/XMLScanner.swift Imaging/Metadata/XMLText.swift Imaging/Metadata/ImageRights+IPTC.swift Imaging/Metadata/IIMDatasets.swift
import Foundation

// `ImageRights` is one type over three files; the XMP and IPTC readers are here only so that
// it compiles (they have targets of their own).

/// The EXIF filter (`keep=exif`) and the EXIF rights reader (`keep=copyright`) over any bytes,
/// as a source's `exif-data` may hold them, with and without the `Exif\0\0` prefix.
///
/// What `EXIFFilter.forOutput` returns must keep the input's length (it edits in place), and
/// hold no GPS: no GPSInfo pointer or embedded XMP/IPTC/Photoshop block left in IFD0, the
/// bytes of the source's GPS IFD (its table and values) all zero, no IFD1, every Orientation 1.
/// Filtering it again changes nothing. The Artist/Copyright block written from the rights read
/// must be sound EXIF that the filter accepts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEXIFFilter(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    check(bytes)
    check(TIFFBytes.exifPrefix + bytes)
    return 0
}

func check(_ blob: [UInt8]) {
    let rights = ImageRights(exif: blob)
    if let block = rights.exifBlock() {
        precondition(EXIFFilter.forOutput(block) != nil, "the written Artist/Copyright block is refused")
    }
    guard let filtered = EXIFFilter.forOutput(blob), let source = TIFFBytes(blob) else { return }
    precondition(filtered.count == source.bytes.count, "the filtered EXIF changed length")
    for range in gpsRanges(source) {
        precondition(filtered[range].allSatisfy { $0 == 0 }, "GPS bytes left at \(range)")
    }
    guard let tiff = TIFFBytes(filtered), let offset = tiff.firstDirectoryOffset,
          let ifd0 = tiff.directory(at: offset) else { preconditionFailure("the filtered EXIF does not read") }
    precondition(ifd0.nextOffset == 0, "IFD1 left")
    for entry in ifd0.entries {
        precondition(![0x8825, 0x02BC, 0x83BB, 0x8649].contains(entry.tag), "tag \(entry.tag) left in IFD0")
        if entry.tag == EXIFFilter.orientationTag {
            precondition(tiff.uint16(at: entry.position + 8) == 1, "an Orientation other than 1")
        }
    }
    precondition(EXIFFilter.forOutput(filtered) == filtered, "filtering again changes the EXIF")
}

/// The bytes of the GPS IFD of `tiff`'s IFD0, where there is one that reads.
func gpsRanges(_ tiff: TIFFBytes) -> [Range<Int>] {
    guard let offset = tiff.firstDirectoryOffset, let ifd0 = tiff.directory(at: offset),
          let pointer = ifd0.entry(EXIFFilter.gpsIFDTag), let gpsOffset = tiff.uint32(at: pointer.position + 8),
          gpsOffset != 0, let gps = tiff.directory(at: gpsOffset) else { return [] }
    return [gps.tableRange] + gps.entries.compactMap(\.valueRange)
}
