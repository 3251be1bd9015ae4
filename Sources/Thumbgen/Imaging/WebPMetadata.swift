import Foundation

/// Removes EXIF and XMP chunks from a WebP file's bytes.
///
/// libvips 8.14's WebP saver writes an EXIF block even with `strip` (it rebuilds one from the
/// image's resolution and orientation), so thumbgen strips it from the RIFF container itself:
/// the chunks go, the VP8X flags that announce them are cleared, and the RIFF size is fixed.
enum WebPMetadata {
    private static let exifFlag: UInt8 = 0x08
    private static let xmpFlag: UInt8 = 0x04

    /// `data` without EXIF and XMP chunks; `data` itself when it is not a WebP file it can read.
    static func stripped(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4] == Array("RIFF".utf8)[...],
              bytes[8..<12] == Array("WEBP".utf8)[...] else { return data }
        var output = Array(bytes[0..<12])
        var offset = 12
        while offset + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
                | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)
            guard end <= bytes.count else { return data }
            if fourCC != "EXIF" && fourCC != "XMP " {
                var chunk = Array(bytes[offset..<end])
                if fourCC == "VP8X", chunk.count > 8 { chunk[8] &= ~(exifFlag | xmpFlag) }
                output += chunk
            }
            offset = end
        }
        let riffSize = UInt32(output.count - 8)
        for i in 0..<4 { output[4 + i] = UInt8((riffSize >> (8 * UInt32(i))) & 0xff) }
        return Data(output)
    }

    /// `data` without EXIF and XMP chunks, or nil unless it is a well-formed WebP file whose
    /// RIFF size matches its length and whose chunks end exactly there: a source passed
    /// through must never keep metadata because a chunk could not be walked.
    static func strictlyStripped(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count >= 12 else { return nil }
        let declared = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard declared + 8 == bytes.count else { return nil }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
                | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            offset += 8 + size + (size & 1)
        }
        guard offset == bytes.count else { return nil }
        let result = stripped(data)
        return result.count <= data.count ? result : nil
    }
}
