import Foundation

/// A PNG written the plain way, for crafting the files the PNG reader is tested on: the
/// specification's filters applied row by row (each row's type chosen by its number), the
/// stream in stored deflate blocks, and the faults a test asks for.
struct ReferencePNG {
    var width: Int
    var height: Int
    var colour: Int
    /// Interleaved 8-bit samples, `height` rows of `width` × bands.
    var pixels: [UInt8]
    var bitDepth = 8
    var interlace = 0
    /// The zlib header's window, as log2 of its size less 8 (7: 32 KiB).
    var window: UInt8 = 7
    /// Each row's filter type; a type past 4 is written as it is, the row unfiltered.
    var filters: [UInt8]
    /// Chunks written after IHDR, before the image data.
    var extraChunks: [(String, [UInt8])] = []
    /// Bytes after the zlib stream, inside the IDAT.
    var trailingStream: [UInt8] = []
    var breakIDATCRC = false
    var dropLastRow = false

    init(width: Int, height: Int, colour: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.colour = colour
        self.pixels = pixels
        filters = (0..<height).map { UInt8($0 % 5) }
    }

    /// Bytes a pixel.
    var bands: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colour] ?? 1 }

    /// The file.
    func bytes() -> [UInt8] {
        let rowBytes = width * bands
        var stream: [UInt8] = []
        for y in 0..<(dropLastRow ? height - 1 : height) {
            let row = Array(pixels[(y * rowBytes)..<((y + 1) * rowBytes)])
            let above = y == 0 ? nil : Array(pixels[((y - 1) * rowBytes)..<(y * rowBytes)])
            stream.append(filters[y])
            stream += Self.filter(Int(filters[y]), row: row, above: above, bpp: bands)
        }
        var ihdr = Self.be32(width) + Self.be32(height)
        ihdr += [UInt8(bitDepth), UInt8(colour), 0, 0, UInt8(interlace)]
        var file: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        file += Self.chunk("IHDR", ihdr)
        if colour == 3 { file += Self.chunk("PLTE", Array(0..<255).flatMap { [UInt8($0), UInt8($0), UInt8($0)] }) }
        for (type, data) in extraChunks { file += Self.chunk(type, data) }
        var idat = Self.chunk("IDAT", zlib(stream) + trailingStream)
        if breakIDATCRC { idat[idat.count - 1] ^= 1 }
        file += idat
        file += Self.chunk("IEND", [])
        return file
    }

    /// `data` as a zlib stream of stored blocks.
    private func zlib(_ data: [UInt8]) -> [UInt8] {
        let cmf = window << 4 | 8
        var flg: UInt8 = 0
        while (UInt16(cmf) << 8 | UInt16(flg)) % 31 != 0 { flg += 1 }
        var out: [UInt8] = [cmf, flg]
        var start = 0
        repeat {
            let end = min(data.count, start + 65_535)
            let length = UInt16(end - start)
            out += [end == data.count ? 1 : 0, UInt8(length & 0xff), UInt8(length >> 8),
                    UInt8(~length & 0xff), UInt8(~length >> 8)]
            out += data[start..<end]
            start = end
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + Self.be32(Int(b << 16 | a))
    }

    /// The predictor of `filter` for byte `i` (specification, section 9.2).
    static func predictor(_ filter: Int, left: Int, up: Int, upLeft: Int) -> Int {
        switch filter {
        case 1: return left
        case 2: return up
        case 3: return (left + up) / 2
        case 4:
            let p = left + up - upLeft
            let (pa, pb, pc) = (abs(p - left), abs(p - up), abs(p - upLeft))
            return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft
        default: return 0
        }
    }

    /// `row` filtered with `filter` against `above` (nil: the first row).
    static func filter(_ filter: Int, row: [UInt8], above: [UInt8]?, bpp: Int) -> [UInt8] {
        row.indices.map { i in
            let left = i >= bpp ? Int(row[i - bpp]) : 0, up = above.map { Int($0[i]) } ?? 0
            let upLeft = i >= bpp ? above.map { Int($0[i - bpp]) } ?? 0 : 0
            return UInt8(truncatingIfNeeded: Int(row[i]) - predictor(filter, left: left, up: up, upLeft: upLeft))
        }
    }

    /// `raw` with `filter` undone against `above` (nil: the first row).
    static func unfilter(_ filter: Int, raw: [UInt8], above: [UInt8]?, bpp: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: raw.count)
        for i in raw.indices {
            let left = i >= bpp ? Int(out[i - bpp]) : 0, up = above.map { Int($0[i]) } ?? 0
            let upLeft = i >= bpp ? above.map { Int($0[i - bpp]) } ?? 0 : 0
            out[i] = UInt8(truncatingIfNeeded: Int(raw[i]) + predictor(filter, left: left, up: up, upLeft: upLeft))
        }
        return out
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// A chunk: length, type, data and CRC-32 over type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crcTable[Int(($0 ^ UInt32($1)) & 0xff)] ^ ($0 >> 8) }
    }
}

/// Bytes from a fixed seed (SplitMix64), so that a failure can be run again.
struct SeededBytes {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            z ^= z >> 31
            withUnsafeBytes(of: z) { bytes += $0 }
        }
        return Array(bytes.prefix(count))
    }
}
