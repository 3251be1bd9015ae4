import Foundation

/// Removes metadata segments from a JPEG file's bytes without touching its compressed data.
///
/// The whole file is walked, not only the headers before the first scan: between the scans of a
/// progressive JPEG the tables (DHT, DQT, DRI) are kept and any APPn or COM there is dropped; the
/// entropy-coded data of each scan is copied verbatim (a 0xFF in it is always followed by a
/// stuffed 0x00 or an RSTn, so the next real marker is found without decoding). Everything after
/// EOI is dropped: MPO frames, motion-photo videos and other trailers, which carry their own EXIF,
/// are invisible to libjpeg, so the decoded pixels stay the same.
enum JPEGMetadata {
    private static let jfif = Array("JFIF\0".utf8)
    private static let adobe = Array("Adobe".utf8)

    /// `data` without metadata, or nil when it is not a well-formed JPEG from SOI to EOI.
    static func stripped(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var output: [UInt8] = [0xFF, 0xD8]
        output.reserveCapacity(bytes.count)
        var offset = 2
        var sawFrame = false, sawScan = false
        while true {
            guard offset < bytes.count, bytes[offset] == 0xFF else { return nil }
            // Any number of 0xFF may pad a marker (T.81 B.1.1.2); the padding is dropped.
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { return nil }
            let marker = bytes[offset]
            offset += 1
            if marker == 0xD9 {
                guard sawScan else { return nil }
                output += [0xFF, 0xD9]
                return Data(output)
            }
            // A stuffed zero, TEM, a restart or a second SOI cannot stand between segments.
            guard marker != 0x00, marker != 0x01, !(0xD0...0xD8).contains(marker),
                  offset + 2 <= bytes.count else { return nil }
            let end = offset + (Int(bytes[offset]) << 8 | Int(bytes[offset + 1]))
            guard end >= offset + 2, end <= bytes.count else { return nil }
            if let payload = kept(marker, bytes[offset + 2..<end]) {
                let length = payload.count + 2
                output += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]
                output += payload
            }
            offset = end
            if isFrameHeader(marker) { sawFrame = true }
            if marker == 0xDA {
                guard sawFrame else { return nil }
                sawScan = true
                let scanEnd = entropyCodedEnd(bytes, from: offset)
                output += bytes[offset..<scanEnd]
                offset = scanEnd
            }
        }
    }

    /// The payload to write for a segment, or nil to drop it.
    ///
    /// APP0 and APP14 are kept only in the forms libjpeg reads (`jdmarker.c`: JFIF with its 14
    /// bytes, Adobe with its 12), because they decide whether three channels are YCbCr or RGB;
    /// their other bytes (a JFIF thumbnail, anything after the Adobe transform) are dropped.
    private static func kept(_ marker: UInt8, _ payload: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        switch marker {
        case 0xE0:
            guard payload.count >= 14, payload.starts(with: jfif) else { return nil }
            return payload.prefix(12) + [0, 0]  // Xthumbnail = Ythumbnail = 0: no thumbnail
        case 0xEE:
            guard payload.count >= 12, payload.starts(with: adobe) else { return nil }
            return payload.prefix(12)
        case 0xE1...0xEF, 0xFE:
            return nil  // APP1–APP15 (EXIF, XMP, ICC, MPF, IPTC, …) and COM
        default:
            return payload  // tables, frame and scan headers, DRI, DNL, …
        }
    }

    /// Whether `marker` is a frame header SOF0–SOF15 (C4, C8 and CC are DHT, JPG and DAC).
    private static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The index of the first 0xFF of the marker that ends the entropy-coded data starting at
    /// `start`, or `bytes.count` when the file ends first (then the caller finds no EOI).
    private static func entropyCodedEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while let mark = bytes[index...].firstIndex(of: 0xFF) {
            var next = mark + 1
            while next < bytes.count, bytes[next] == 0xFF { next += 1 }
            guard next < bytes.count else { return bytes.count }
            let code = bytes[next]
            if code != 0x00, !(0xD0...0xD7).contains(code) { return mark }
            index = next + 1
        }
        return bytes.count
    }
}
