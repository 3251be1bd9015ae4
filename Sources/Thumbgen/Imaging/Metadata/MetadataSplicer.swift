import Foundation

/// Puts an output's metadata (`OutputMetadata`) into the bytes an encoder wrote, for the
/// formats whose containers thumbgen writes itself: JPEG (APP1, APP2, APP13 segments), PNG
/// (iCCP, eXIf, iTXt chunks) and WebP (the extended format's ICCP, EXIF and XMP chunks).
///
/// The savers always strip (their output with nothing kept is the default's, byte for byte),
/// and the blocks go in afterwards, each where its container's specification puts it; the
/// compressed image data is copied untouched.
enum MetadataSplicer {
    /// `data` (a `format` file) with `metadata` in it; `data` itself when there is nothing to
    /// add. Nil when the bytes are not a file of that format it can walk.
    static func embedding(_ metadata: OutputMetadata, in data: Data, format: OutputFormat) -> Data? {
        guard !metadata.isEmpty else { return data }
        let bytes = [UInt8](data)
        let result: [UInt8]?
        switch format {
        case .jpeg: result = jpeg(bytes, metadata)
        case .png: result = png(bytes, metadata)
        case .webp: result = webp(bytes, metadata)
        default: result = nil
        }
        return result.map { Data($0) }
    }

    // MARK: - JPEG

    /// The most bytes one JPEG segment holds after its length field.
    private static let segmentCapacity = 65533

    /// After SOI and any JFIF APP0: APP1 EXIF, APP1 XMP, the profile in APP2 chunks of
    /// `ICC_PROFILE`, then APP13. A block too large for one segment (EXIF, XMP: JPEG has no
    /// way to split them that readers agree on) is left out.
    private static func jpeg(_ bytes: [UInt8], _ metadata: OutputMetadata) -> [UInt8]? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var insertAt = 2
        if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE0 {
            // The length counts its own two bytes: less would put the blocks inside APP0.
            let length = Int(bytes[4]) << 8 | Int(bytes[5])
            insertAt = 4 + length
            guard length >= 2, insertAt <= bytes.count else { return nil }
        }
        var segments: [UInt8] = []
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            guard payload.count <= segmentCapacity else { return }
            let length = payload.count + 2
            segments += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        if let exif = metadata.exif { segment(0xE1, Array("Exif\0\0".utf8) + exif) }
        if let xmp = metadata.xmp { segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp) }
        if let icc = metadata.icc {
            // ICC.1 Annex B.4: chunks numbered from 1, each with the count.
            let capacity = segmentCapacity - 14
            let count = (icc.count + capacity - 1) / capacity
            guard count <= 255 else { return nil }
            for index in 0..<count {
                let chunk = icc[(index * capacity)..<min(icc.count, (index + 1) * capacity)]
                segment(0xE2, Array("ICC_PROFILE\0".utf8) + [UInt8(index + 1), UInt8(count)] + chunk)
            }
        }
        if let iptc = metadata.iptc { segment(0xED, iptc) }
        return Array(bytes[..<insertAt]) + segments + bytes[insertAt...]
    }

    // MARK: - PNG

    /// After IHDR: iCCP (which replaces any sRGB, gAMA or cHRM chunk: PNG 11.3.3.1 lets a
    /// profile stand alone), eXIf and an iTXt `XML:com.adobe.xmp`, all before the image data.
    private static func png(_ bytes: [UInt8], _ metadata: OutputMetadata) -> [UInt8]? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: signature) else { return nil }
        var chunks: [UInt8] = []
        if let icc = metadata.icc { chunks += pngChunk("iCCP", Array("ICC Profile\0".utf8) + [0] + ZlibStored.wrap(icc)) }
        if let exif = metadata.exif { chunks += pngChunk("eXIf", exif) }
        if let xmp = metadata.xmp { chunks += pngChunk("iTXt", Array("XML:com.adobe.xmp\0".utf8) + [0, 0, 0, 0] + xmp) }
        var output = signature
        var offset = signature.count
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard length <= 0x7FFF_FFFF, end <= bytes.count else { return nil }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let replaced = metadata.icc != nil && ["sRGB", "gAMA", "cHRM", "iCCP"].contains(type)
            if !replaced { output += bytes[offset..<end] }
            if type == "IHDR" { output += chunks }
            if type == "IEND" { return output }
            offset = end
        }
        return nil
    }

    private static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(UInt32(data.count)) + typeBytes + data + be32(CRC32.checksum(typeBytes + data))
    }

    // MARK: - WebP

    private enum WebPFlag {
        static let icc: UInt8 = 0x20, alpha: UInt8 = 0x10, exif: UInt8 = 0x08, xmp: UInt8 = 0x04
    }

    /// The extended format (a simple VP8 or VP8L file gets a VP8X header, its canvas size read
    /// from the bitstream's): VP8X, ICCP, the image chunks, EXIF, XMP (WebP container spec).
    private static func webp(_ bytes: [UInt8], _ metadata: OutputMetadata) -> [UInt8]? {
        guard bytes.count >= 20, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8)
        else { return nil }
        var chunks: [(type: String, body: ArraySlice<UInt8>)] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(le32(bytes, offset + 4))
            let end = offset + 8 + size
            // A FourCC is four ASCII letters; other bytes would not come back out of a String.
            guard end <= bytes.count, bytes[offset..<offset + 4].allSatisfy({ $0 < 0x80 }) else { return nil }
            chunks.append((String(decoding: bytes[offset..<offset + 4], as: UTF8.self), bytes[offset + 8..<end]))
            offset = end + (size & 1)
        }
        guard let first = chunks.first else { return nil }
        var header: [UInt8]
        if first.type == "VP8X" {
            guard first.body.count >= 10 else { return nil }
            header = Array(first.body)
            chunks.removeFirst()
        } else {
            guard let (width, height, alpha) = canvas(first.type, first.body) else { return nil }
            header = [alpha ? WebPFlag.alpha : 0, 0, 0, 0]
                + le24(width - 1) + le24(height - 1)
        }
        chunks.removeAll { ["ICCP", "EXIF", "XMP "].contains($0.type) }
        if metadata.icc != nil { header[0] |= WebPFlag.icc }
        if metadata.exif != nil { header[0] |= WebPFlag.exif }
        if metadata.xmp != nil { header[0] |= WebPFlag.xmp }
        var body = riffChunk("VP8X", header[...])
        if let icc = metadata.icc { body += riffChunk("ICCP", icc[...]) }
        for chunk in chunks { body += riffChunk(chunk.type, chunk.body) }
        if let exif = metadata.exif { body += riffChunk("EXIF", exif[...]) }
        if let xmp = metadata.xmp { body += riffChunk("XMP ", xmp[...]) }
        return Array("RIFF".utf8) + le32Bytes(UInt32(body.count + 4)) + Array("WEBP".utf8) + body
    }

    /// The canvas of a simple file's one image chunk: a lossy key frame's 14-bit sizes after
    /// its start code, or a lossless stream's after its signature byte (with its alpha hint).
    private static func canvas(_ type: String, _ body: ArraySlice<UInt8>) -> (Int, Int, Bool)? {
        let b = Array(body)
        if type == "VP8 ", b.count >= 10, b[3] == 0x9D, b[4] == 0x01, b[5] == 0x2A {
            return (Int(b[6]) | Int(b[7] & 0x3F) << 8, Int(b[8]) | Int(b[9] & 0x3F) << 8, false)
        }
        if type == "VP8L", b.count >= 5, b[0] == 0x2F {
            let bits = UInt32(b[1]) | UInt32(b[2]) << 8 | UInt32(b[3]) << 16 | UInt32(b[4]) << 24
            return (Int(bits & 0x3FFF) + 1, Int(bits >> 14 & 0x3FFF) + 1, bits >> 28 & 1 == 1)
        }
        return nil
    }

    private static func riffChunk(_ type: String, _ body: ArraySlice<UInt8>) -> [UInt8] {
        Array(type.utf8) + le32Bytes(UInt32(body.count)) + body + (body.count & 1 == 1 ? [0] : [])
    }

    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
    private static func le32Bytes(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
    private static func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
