import Foundation

/// The facts of TIFF and HEIF (HEIC, AVIF) files, read in Swift from their headers as the
/// other formats' are: a TIFF's first IFD (wherever in the file it lies), a HEIF's `meta` box.
extension SourceFacts {
    /// A TIFF's (or BigTIFF's) first image: its size (turned by an Orientation of 5 to 8) and
    /// whether it has a sample beyond its colour's (alpha, as libvips takes it); libvips reads
    /// its first page, so pages are no animation. A tag given twice counts as first given.
    static func tiff(path: String) -> SourceFacts? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        func bytes(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, (try? file.seek(toOffset: UInt64(offset))) != nil, let data = try? file.read(upToCount: count),
                  data.count == count else { return nil }
            return [UInt8](data)
        }
        guard let head = bytes(0, 8) else { return nil }
        let little = head[0] == 0x49 && head[1] == 0x49
        guard little || (head[0] == 0x4D && head[1] == 0x4D) else { return nil }
        func u16(_ b: [UInt8], _ at: Int) -> Int { little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1]) }
        func u32(_ b: [UInt8], _ at: Int) -> Int { little ? u16(b, at) | u16(b, at + 2) << 16 : u16(b, at) << 16 | u16(b, at + 2) }
        // BigTIFF: 8-byte offsets and counts, 20-byte entries.
        let big = u16(head, 2) == 43
        guard u16(head, 2) == 42 || big, let more = bytes(0, big ? 16 : 8) else { return nil }
        // A BigTIFF's offset is 64 bits, its high half first in big-endian order.
        let (high, low) = big ? (little ? (u32(more, 12), u32(more, 8)) : (u32(more, 8), u32(more, 12))) : (0, u32(more, 4))
        guard high < 1 << 30 else { return nil }
        let ifd = high << 32 | low
        let (entrySize, countSize, valueAt) = big ? (20, 8, 12) : (12, 2, 8)
        guard let countBytes = bytes(ifd, countSize) else { return nil }
        let count = u16(countBytes, little ? 0 : countSize - 2)
        guard count > 0, count < 4096, let entries = bytes(ifd + countSize, count * entrySize) else { return nil }
        var tags: [Int: Int] = [:]
        for index in 0..<count {
            let at = index * entrySize
            let tag = u16(entries, at)
            guard tags[tag] == nil else { continue }
            // A SHORT's value is in the value's first two bytes, a LONG's in four; a count for
            // ExtraSamples.
            let short = u16(entries, at + 2) == 3
            tags[tag] = tag == 338 ? u32(entries, at + 4 + (big && !little ? 4 : 0))
                : short ? u16(entries, at + valueAt) : u32(entries, at + valueAt)
        }
        guard let width = tags[256], let height = tags[257], width > 0, height > 0 else { return nil }
        let orientation = tags[274] ?? 1, samples = tags[277] ?? 1
        // The samples a pixel's colour takes: min-is-white/black and palette 1, CMYK 4, others 3.
        let colour = [0: 1, 1: 1, 3: 1, 4: 1, 5: 4][tags[262] ?? 2] ?? 3
        let turned = orientation >= 5 && orientation <= 8
        return SourceFacts(width: turned ? height : width, height: turned ? width : height,
                           hasAlpha: (tags[338] ?? 0) > 0 || samples > colour, animated: false)
    }

    /// A HEIF's primary item (`pitm`): the size of its `ispe` property, turned by its `irot`;
    /// alpha when an auxiliary alpha image is described (`auxC`); an image sequence (`avis`,
    /// `msf1`, `hevs` brands) is an animation. Every read is bounded by the bytes given: the
    /// file is the page author's, and the parent process must not trap on it.
    static func heif(_ b: [UInt8]) -> SourceFacts? {
        func u32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
        func u16(_ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
        func boxes(_ range: Range<Int>) -> [(type: String, body: Range<Int>)] { isoBoxes(b, range) }
        let top = boxes(0..<b.count)
        guard let ftyp = top.first(where: { $0.type == "ftyp" }), ftyp.body.count >= 8 else { return nil }
        let brands = stride(from: ftyp.body.lowerBound, to: ftyp.body.upperBound - 3, by: 4).map {
            String(decoding: b[$0..<($0 + 4)], as: UTF8.self)
        }
        guard let meta = top.first(where: { $0.type == "meta" }), meta.body.count > 4 else { return nil }
        let inMeta = boxes((meta.body.lowerBound + 4)..<meta.body.upperBound)
        guard let iprp = inMeta.first(where: { $0.type == "iprp" }),
              let ipco = boxes(iprp.body).first(where: { $0.type == "ipco" }) else { return nil }
        let properties = boxes(ipco.body)
        var primary = -1
        // Its item number: 16 bits at version 0, 32 after.
        if let pitm = inMeta.first(where: { $0.type == "pitm" }),
           pitm.body.count >= (b[pitm.body.lowerBound] == 0 ? 6 : 8) {
            primary = b[pitm.body.lowerBound] == 0 ? u16(pitm.body.lowerBound + 4) : u32(pitm.body.lowerBound + 4)
        }
        // The primary item's properties, by their 1-based index in `ipco`.
        var associated: [Int] = []
        if let ipma = boxes(iprp.body).first(where: { $0.type == "ipma" }), ipma.body.count >= 8 {
            let version = b[ipma.body.lowerBound], wide = b[ipma.body.lowerBound + 3] & 1 != 0
            var at = ipma.body.lowerBound + 4
            let entries = u32(at)
            at += 4
            for _ in 0..<entries {
                guard at + 6 <= ipma.body.upperBound else { break }
                let item = version < 1 ? u16(at) : u32(at)
                at += version < 1 ? 2 : 4
                let count = Int(b[at])
                at += 1
                for _ in 0..<count {
                    guard at + (wide ? 2 : 1) <= ipma.body.upperBound else { break }
                    let index = wide ? u16(at) & 0x7FFF : Int(b[at] & 0x7F)
                    at += wide ? 2 : 1
                    if item == primary { associated.append(index) }
                }
            }
        }
        var width = 0, height = 0, turned = false, alpha = false
        for (index, property) in properties.enumerated() {
            let mine = associated.isEmpty || associated.contains(index + 1)
            switch property.type {
            case "ispe" where mine && property.body.count >= 12:
                let w = u32(property.body.lowerBound + 4), h = u32(property.body.lowerBound + 8)
                // Without associations, the largest image described; a side past 2^24 is no
                // image's (and would overflow the product).
                if w < 1 << 24, h < 1 << 24, w * h > width * height { (width, height) = (w, h) }
            case "irot" where mine && property.body.count >= 1:
                turned = b[property.body.lowerBound] & 1 != 0
            case "auxC" where property.body.count > 4:
                let urn = String(decoding: b[(property.body.lowerBound + 4)..<property.body.upperBound], as: UTF8.self)
                if urn.hasPrefix("urn:mpeg:mpegB:cicp:systems:auxiliary:alpha") || urn.hasPrefix("urn:mpeg:hevc:2015:auxid:1") {
                    alpha = true
                }
            default:
                break
            }
        }
        guard width > 0, height > 0 else { return nil }
        // A sequence's brand says so wherever its `moov` box lies (perhaps beyond what was read).
        let sequence = brands.contains { ["avis", "msf1", "hevs"].contains($0) }
        return SourceFacts(width: turned ? height : width, height: turned ? width : height, hasAlpha: alpha,
                           animated: sequence)
    }

    /// The ISOBMFF boxes in `range` of `b` (HEIF's container, JPEG XL's): each one's type and
    /// the range of its contents. A box running past `range` ends the list, unless `keepingCut`:
    /// then it is the last, its contents cut where `range` ends (a codestream longer than what
    /// was read). Every read is bounded by `range`.
    static func isoBoxes(_ b: [UInt8], _ range: Range<Int>, keepingCut: Bool = false) -> [(type: String, body: Range<Int>)] {
        func u32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
        var found: [(String, Range<Int>)] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = u32(at), header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { break }
                // A 64-bit size: one of 4 GiB or more runs past anything read here.
                size = u32(at + 8) != 0 ? Int.max : u32(at + 12)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header else { break }
            let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
            guard size <= range.upperBound - at else {
                if keepingCut, at + header <= range.upperBound { found.append((type, (at + header)..<range.upperBound)) }
                break
            }
            found.append((type, (at + header)..<(at + size)))
            at += size
        }
        return found
    }
}
