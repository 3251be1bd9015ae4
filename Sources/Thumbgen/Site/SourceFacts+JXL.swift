/// The facts of a JPEG XL file, read from its codestream's first fields (ISO/IEC 18181-1:
/// `SizeHeader`, then the start of `ImageMetadata`), bare or in its ISOBMFF container.
extension SourceFacts {
    /// The codestream's first bytes: `FF 0A`.
    static let jxlSignature: [UInt8] = [0xFF, 0x0A]
    /// The container's first box: `JXL ` of 12 bytes.
    static let jxlContainer: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// A JPEG XL image's upright size (an orientation of 5 to 8 turns it), whether its first
    /// extra channel is alpha, and whether it is an animation; nil when the header is damaged,
    /// beyond `bytes`, or names an extra channel before its alpha (not read here).
    static func jxl(_ bytes: [UInt8]) -> SourceFacts? {
        let codestream: ArraySlice<UInt8>
        if bytes.starts(with: jxlSignature) {
            codestream = bytes[2...]
        } else if bytes.starts(with: jxlContainer) {
            // The first `jxlc` box's contents, or the first `jxlp` box's after its 4-byte index.
            guard let box = isoBoxes(bytes, 0..<bytes.count, keepingCut: true)
                .first(where: { $0.type == "jxlc" || $0.type == "jxlp" }) else { return nil }
            let start = box.body.lowerBound + (box.type == "jxlp" ? 4 : 0)
            guard start <= box.body.upperBound, bytes[start..<box.body.upperBound].starts(with: jxlSignature) else { return nil }
            codestream = bytes[(start + 2)..<box.body.upperBound]
        } else {
            return nil
        }
        var bits = BitReader(codestream)
        guard let (width, height) = jxlSize(&bits), let allDefault = bits.flag() else { return nil }
        var orientation = 1
        /// The facts, the size turned by an orientation of 5 to 8.
        func facts(alpha: Bool, animated: Bool = false) -> SourceFacts {
            let turned = orientation >= 5
            return SourceFacts(width: turned ? height : width, height: turned ? width : height, hasAlpha: alpha,
                               animated: animated)
        }
        if allDefault { return facts(alpha: false) }
        guard let extraFields = bits.flag() else { return nil }
        if extraFields {
            guard let stored = bits.read(3), let hasIntrinsic = bits.flag() else { return nil }
            orientation = stored + 1
            if hasIntrinsic { guard jxlSize(&bits) != nil else { return nil } }
            guard let hasPreview = bits.flag() else { return nil }
            if hasPreview { guard jxlPreviewSize(&bits) else { return nil } }
            guard let animated = bits.flag() else { return nil }
            if animated { return facts(alpha: false, animated: true) }
        }
        // BitDepth, then whether 16-bit buffers suffice, then the extra channels.
        guard let float = bits.flag(),
              (float ? bits.u32(.value(32), .value(16), .value(24), .bits(6, 1))
                     : bits.u32(.value(8), .value(10), .value(12), .bits(6, 1))) != nil,
              !float || bits.read(4) != nil,
              bits.flag() != nil,
              let channels = bits.u32(.value(0), .value(1), .bits(4, 2), .bits(12, 1)) else { return nil }
        guard channels > 0 else { return facts(alpha: false) }
        // The first extra channel: all defaults is alpha; else its type, 0 being alpha.
        guard let defaultChannel = bits.flag() else { return nil }
        if defaultChannel { return facts(alpha: true) }
        guard let type = bits.u32(.value(0), .value(1), .bits(4, 2), .bits(6, 18)) else { return nil }
        if type == 0 { return facts(alpha: true) }
        return channels == 1 ? facts(alpha: false) : nil
    }

    /// A `SizeHeader`: width and height in pixels.
    private static func jxlSize(_ bits: inout BitReader) -> (Int, Int)? {
        guard let small = bits.flag() else { return nil }
        let height: Int
        if small {
            guard let eighths = bits.read(5) else { return nil }
            height = (eighths + 1) * 8
        } else {
            guard let value = bits.u32(.bits(9, 1), .bits(13, 1), .bits(18, 1), .bits(30, 1)) else { return nil }
            height = value
        }
        guard let ratio = bits.read(3) else { return nil }
        if let width = jxlRatioWidth(ratio, height) { return (width, height) }
        if small {
            guard let eighths = bits.read(5) else { return nil }
            return ((eighths + 1) * 8, height)
        }
        guard let width = bits.u32(.bits(9, 1), .bits(13, 1), .bits(18, 1), .bits(30, 1)) else { return nil }
        return (width, height)
    }

    /// A `PreviewHeader`, read past; false when cut short.
    private static func jxlPreviewSize(_ bits: inout BitReader) -> Bool {
        guard let div8 = bits.flag() else { return false }
        let eighths: [BitReader.Distribution] = [.value(16), .value(32), .bits(5, 1), .bits(9, 33)]
        let pixels: [BitReader.Distribution] = [.bits(6, 1), .bits(8, 65), .bits(10, 321), .bits(12, 1345)]
        let side = div8 ? eighths : pixels
        guard let height = bits.u32(side[0], side[1], side[2], side[3]), let ratio = bits.read(3) else { return false }
        if ratio != 0 { return jxlRatioWidth(ratio, height) != nil }
        return bits.u32(side[0], side[1], side[2], side[3]) != nil
    }

    /// The width `ratio` (1 to 7) gives `height`, as libjxl works it out; nil for 0 (stored).
    private static func jxlRatioWidth(_ ratio: Int, _ height: Int) -> Int? {
        guard (1...7).contains(ratio) else { return nil }
        let (numerator, denominator) = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][ratio - 1]
        return height * numerator / denominator
    }
}

/// Bits read least significant first, as JPEG XL packs its headers.
struct BitReader {
    private let bytes: ArraySlice<UInt8>
    private var position = 0

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// How one of a `U32`'s four choices is stored: a constant, or `count` bits plus `offset`.
    enum Distribution {
        case value(Int)
        case bits(Int, Int)
    }

    /// The next `count` bits (at most 32) as a number; nil past the end.
    mutating func read(_ count: Int) -> Int? {
        guard position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for bit in 0..<count {
            let at = position + bit
            let byte = bytes[bytes.startIndex + at / 8]
            value |= Int((byte >> UInt8(at % 8)) & 1) << bit
        }
        position += count
        return value
    }

    /// One bit as a truth value.
    mutating func flag() -> Bool? {
        read(1).map { $0 == 1 }
    }

    /// A `U32`: two bits choose one of the four distributions.
    mutating func u32(_ d0: Distribution, _ d1: Distribution, _ d2: Distribution, _ d3: Distribution) -> Int? {
        guard let selector = read(2) else { return nil }
        switch [d0, d1, d2, d3][selector] {
        case .value(let value): return value
        case .bits(let count, let offset): return read(count).map { $0 + offset }
        }
    }
}
