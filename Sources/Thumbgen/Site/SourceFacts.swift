/// What `thumbgen site` needs to know of a source before it renders: its upright size (what a
/// browser draws, EXIF orientation applied), whether it has alpha and more than one frame.
/// Read in Swift from the file's header, for JPEG, PNG, GIF and WebP (the formats built sites
/// carry), TIFF, HEIC and AVIF (`SourceFacts+More.swift`) and JPEG XL (`SourceFacts+JXL.swift`):
/// no decoder runs in the parent process, which never opens an image with one.
struct SourceFacts: Sendable, Equatable {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var animated: Bool
    /// The fallback format's name for the source: `png` where it has alpha (or is a GIF,
    /// whose transparency is not known here), else `jpeg`.
    var fallback: String { hasAlpha ? "png" : "jpeg" }

    /// How much of a file is read first: enough for every header but a JPEG whose EXIF block
    /// (up to 64 KiB) precedes its frame header, or a GIF's first frame.
    static let readLength = 16 * 1024
    /// How much is read when the first read held too little.
    static let longReadLength = 1024 * 1024

    /// The facts of the image at `path`: its first `readLength` bytes, then more when they
    /// held too little; nil for another format or a damaged header.
    static func read(path: String) -> SourceFacts? {
        guard let head = FormatSniffer.header(path: path, length: readLength) else { return nil }
        // A TIFF's directory may lie anywhere in the file: it is read where it is.
        if [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]]
            .contains(where: { head.starts(with: $0) }) {
            return tiff(path: path)
        }
        if let facts = read(head, whole: head.count < readLength) { return facts }
        guard head.count == readLength, let more = FormatSniffer.header(path: path, length: longReadLength) else { return nil }
        return read(more, whole: true)
    }

    /// The facts of the image in `bytes` (its start; `whole` when no more will be read); nil
    /// for another format, or one whose header is damaged or beyond `bytes`.
    static func read(_ bytes: [UInt8], whole: Bool = true) -> SourceFacts? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return jpeg(bytes) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(bytes, whole: whole) }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            return gif(bytes, whole: whole)
        }
        if bytes.count >= 30, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return webp(bytes)
        }
        if bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) { return heif(bytes) }
        if bytes.starts(with: jxlSignature) || bytes.starts(with: jxlContainer) { return jxl(bytes) }
        return nil
    }

    private static func big16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
    private static func big32(_ b: [UInt8], _ at: Int) -> Int { big16(b, at) << 16 | big16(b, at + 2) }
    private static func little16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    private static func little24(_ b: [UInt8], _ at: Int) -> Int { little16(b, at) | Int(b[at + 2]) << 16 }

    /// The markers before the first frame header: its size, and APP1's EXIF orientation
    /// (5 to 8 turn the image a quarter).
    private static func jpeg(_ b: [UInt8]) -> SourceFacts? {
        var at = 2, turned = false
        while at + 4 <= b.count {
            guard b[at] == 0xFF else { return nil }
            let marker = b[at + 1]
            if marker == 0xFF { at += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { at += 2; continue }
            let length = big16(b, at + 2)
            guard length >= 2, at + 2 + length <= b.count else { return nil }
            let body = at + 4
            switch marker {
            case 0xC0...0xCF where ![0xC4, 0xC8, 0xCC].contains(marker):
                guard length >= 7 else { return nil }
                let height = big16(b, body + 1), width = big16(b, body + 3)
                guard width > 0, height > 0 else { return nil }
                return SourceFacts(width: turned ? height : width, height: turned ? width : height,
                                   hasAlpha: false, animated: false)
            case 0xE1 where length >= 8 && Array(b[body..<body + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0]:
                turned = (exifOrientation(Array(b[(body + 6)..<(at + 2 + length)])) ?? 1) >= 5
            case 0xDA, 0xD9:
                return nil
            default:
                break
            }
            at += 2 + length
        }
        return nil
    }

    /// The Orientation tag (0x0112) of IFD0 of a TIFF-structured EXIF block.
    private static func exifOrientation(_ t: [UInt8]) -> Int? {
        guard t.count >= 8 else { return nil }
        let little = t[0] == 0x49 && t[1] == 0x49
        guard little || (t[0] == 0x4D && t[1] == 0x4D) else { return nil }
        func u16(_ at: Int) -> Int { little ? little16(t, at) : big16(t, at) }
        func u32(_ at: Int) -> Int { little ? (u16(at) | u16(at + 2) << 16) : (u16(at) << 16 | u16(at + 2)) }
        let ifd = u32(4)
        guard ifd >= 8, ifd + 2 <= t.count else { return nil }
        let count = u16(ifd)
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard at + 12 <= t.count else { return nil }
            if u16(at) == 0x0112 { return u16(at + 8) }
        }
        return nil
    }

    /// IHDR's size and colour type; `tRNS` before the image data adds alpha, `acTL` animates.
    /// Chunks that run past what was read (a large ICC profile or XMP first) leave both unknown:
    /// nil, so that more is read, unless `whole`.
    private static func png(_ b: [UInt8], whole: Bool) -> SourceFacts? {
        guard b.count >= 33, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        let width = big32(b, 16), height = big32(b, 20), colour = b[25]
        guard width > 0, height > 0 else { return nil }
        var facts = SourceFacts(width: width, height: height, hasAlpha: colour == 4 || colour == 6, animated: false)
        var at = 33
        while at + 8 <= b.count {
            let length = big32(b, at), type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { return facts }
            if type == "tRNS" { facts.hasAlpha = true }
            if type == "acTL" { facts.animated = true }
            at += 12 + length
        }
        return whole ? facts : nil
    }

    /// The logical screen's size; frames counted by walking the blocks (a second image
    /// descriptor makes an animation). Where the blocks run past what was read: nil, so that
    /// more is read, or, with `whole`, an animation (left alone: a still made of the first
    /// frame of an animation would replace it). Transparency is a frame's, so a GIF counts as
    /// having alpha (its fallback is PNG).
    private static func gif(_ b: [UInt8], whole: Bool) -> SourceFacts? {
        guard b.count >= 13 else { return nil }
        let width = little16(b, 6), height = little16(b, 8)
        guard width > 0, height > 0 else { return nil }
        var at = 13
        if b[10] & 0x80 != 0 { at += 3 << (Int(b[10] & 7) + 1) }
        var frames = 0, ended = false
        /// Skips data sub-blocks from `at`; false when they run past the bytes read.
        func skipSubBlocks() -> Bool {
            while at < b.count {
                let size = Int(b[at])
                at += 1 + size
                if size == 0 { return true }
            }
            return false
        }
        walk: while at < b.count, frames < 2 {
            switch b[at] {
            case 0x21:
                at += 2
                guard skipSubBlocks() else { break walk }
            case 0x2C:
                frames += 1
                guard at + 10 <= b.count else { break walk }
                let flags = b[at + 9]
                at += 10
                if flags & 0x80 != 0 { at += 3 << (Int(flags & 7) + 1) }
                at += 1
                guard skipSubBlocks() else { break walk }
            default:
                // The trailer (0x3B), or bytes no GIF block starts with: the frames end here.
                ended = true
                break walk
            }
        }
        let known = frames > 1 || ended
        guard known || whole else { return nil }
        return SourceFacts(width: width, height: height, hasAlpha: true, animated: frames > 1 || !known)
    }

    /// VP8X's canvas and flags, VP8L's packed size, or VP8's frame header.
    private static func webp(_ b: [UInt8]) -> SourceFacts? {
        let chunk = String(decoding: b[12..<16], as: UTF8.self)
        switch chunk {
        case "VP8X":
            let flags = b[20]
            return SourceFacts(width: little24(b, 24) + 1, height: little24(b, 27) + 1,
                               hasAlpha: flags & 0x10 != 0, animated: flags & 0x02 != 0)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = Int(b[21]) | Int(b[22]) << 8 | Int(b[23]) << 16 | Int(b[24]) << 24
            return SourceFacts(width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1,
                               hasAlpha: bits >> 28 & 1 != 0, animated: false)
        case "VP8 ":
            guard Array(b[23..<26]) == [0x9D, 0x01, 0x2A] else { return nil }
            return SourceFacts(width: little16(b, 26) & 0x3FFF, height: little16(b, 28) & 0x3FFF,
                               hasAlpha: false, animated: false)
        default:
            return nil
        }
    }
}
