import Foundation

/// Removes metadata chunks from a PNG file's bytes without touching its compressed data.
///
/// Kept chunks are copied whole, CRC included, so nothing is recomputed. Bytes after IEND are
/// dropped: decoders never read them, and appended data is the usual place to hide a payload.
enum PNGMetadata {
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The critical chunks thumbgen understands, and the ancillary chunks that change how the
    /// pixels look (transparency, gamma, primaries, rendering intent, significant bits, and
    /// cICP, the coding-independent code points of an HDR or wide-gamut PNG). The rest (text,
    /// eXIf, iCCP, tIME, pHYs, bKGD, hIST, sPLT, private chunks) are dropped.
    private static let kept: Set<String> = [
        "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "sBIT", "cICP",
    ]

    /// `data` without metadata, or nil when it is not a well-formed still PNG from IHDR to IEND.
    static func stripped(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.starts(with: signature) else { return nil }
        var output = signature
        output.reserveCapacity(bytes.count)
        var offset = signature.count
        var sawImageData = false
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let typeBytes = bytes[offset + 4..<offset + 8]
            let end = offset + 12 + length
            guard length <= 0x7FFF_FFFF, end <= bytes.count,
                  typeBytes.allSatisfy(isASCIILetter) else { return nil }
            let type = String(decoding: typeBytes, as: UTF8.self)
            // IHDR comes first and only once (PNG 5.6).
            guard (type == "IHDR") == (offset == signature.count) else { return nil }
            // libvips reads the first frame of an APNG only: passing all frames on would differ.
            if type == "acTL" { return nil }
            if type == "IDAT" { sawImageData = true }
            if kept.contains(type) {
                output += bytes[offset..<end]
            } else if isCritical(typeBytes) {
                return nil  // an unknown critical chunk: no decoder may skip it, so neither may we
            }
            if type == "IEND" { return sawImageData ? Data(output) : nil }
            offset = end
        }
        return nil
    }

    /// Chunk types are four ASCII letters (PNG 5.4); anything else is not a PNG chunk.
    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// Bit 5 of the first type byte clear (an upper-case letter) marks a critical chunk.
    private static func isCritical(_ type: ArraySlice<UInt8>) -> Bool {
        (type.first ?? 0) & 0x20 == 0
    }
}
