// sources: Imaging/Metadata/MetadataSplicer.swift Imaging/Metadata/CRC32.swift Imaging/Metadata/ZlibStored.swift Imaging/Metadata/OutputMetadata.swift Model/OutputFormat.swift
import Foundation

/// The metadata splicer over any container bytes and any blocks, as the encoders' output and
/// the blocks made from a source's metadata reach it.
///
/// The input is a header and then the file: its first byte picks the format (bits 0–1: JPEG,
/// PNG, WebP, GIF) and which blocks there are (bits 2–5: ICC, EXIF, XMP, IPTC); each block
/// present is a two-byte length and its bytes; what follows is the container.
///
/// With nothing to embed the file comes back as it was. Otherwise what comes back (when
/// anything does) must start with its container's signature and walk as one: a PNG's chunks
/// end at IEND, a WebP's RIFF size is its length and its chunks tile it, beginning with VP8X.
/// Splicing into it again must succeed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadataSplicer(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var input = UnsafeRawBufferPointer(start: start, count: count)[...]
    guard let flags = input.popFirst() else { return 0 }
    let format: OutputFormat = [.jpeg, .png, .webp, .gif][Int(flags & 3)]
    func block(_ bit: UInt8) -> [UInt8]? {
        guard flags & bit != 0 else { return nil }
        let high = input.popFirst() ?? 0, low = input.popFirst() ?? 0
        let length = min(Int(high) << 8 | Int(low), input.count)
        defer { input = input.dropFirst(length) }
        return Array(input.prefix(length))
    }
    let metadata = OutputMetadata(icc: block(0x04), exif: block(0x08), xmp: block(0x10), iptc: block(0x20))
    let data = Data(input)
    guard let spliced = MetadataSplicer.embedding(metadata, in: data, format: format) else { return 0 }
    if metadata.isEmpty {
        precondition(spliced == data, "nothing to embed, yet the file changed")
        return 0
    }
    let bytes = [UInt8](spliced)
    switch format {
    case .jpeg: precondition(bytes.starts(with: [0xFF, 0xD8]), "no SOI")
    case .png: checkPNG(bytes)
    case .webp: checkWebP(bytes)
    default: break
    }
    precondition(MetadataSplicer.embedding(metadata, in: spliced, format: format) != nil, "its own output is refused")
    return 0
}

/// Traps unless `bytes` is the PNG signature and whole chunks up to a final IEND.
func checkPNG(_ bytes: [UInt8]) {
    precondition(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "no PNG signature")
    var offset = 8, last: ArraySlice<UInt8> = []
    while offset < bytes.count {
        precondition(offset + 12 <= bytes.count, "a cut chunk")
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        last = bytes[offset + 4..<offset + 8]
        offset += 12 + length
    }
    precondition(offset == bytes.count && last.elementsEqual("IEND".utf8), "chunks do not end at IEND")
}

/// Traps unless `bytes` is a RIFF WEBP of its own length whose chunks, VP8X first, tile it.
func checkWebP(_ bytes: [UInt8]) {
    precondition(bytes.count >= 20 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8),
                 "no RIFF WEBP header")
    func le32(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24 }
    precondition(le32(4) == bytes.count - 8, "the RIFF size is not the file's")
    precondition(bytes[12..<16].elementsEqual("VP8X".utf8), "VP8X is not first")
    var offset = 12
    while offset < bytes.count {
        precondition(offset + 8 <= bytes.count, "a cut chunk header")
        let size = le32(offset + 4)
        offset += 8 + size + (size & 1)
    }
    precondition(offset == bytes.count, "the chunks do not tile the file")
}
