/// The bytes of a TIFF structure (such as EXIF) with their byte order; every read is checked.
///
/// The bytes come from files the user does not control, so no accessor traps: a read outside
/// the bytes gives nil and the caller decides whether that makes the whole structure unusable.
struct TIFFBytes {
    /// What precedes the TIFF header in a JPEG APP1 segment, and in libvips' `exif-data`.
    static let exifPrefix: [UInt8] = Array("Exif\0\0".utf8)

    /// The structure from its header on; offsets inside it count from the first byte.
    private(set) var bytes: [UInt8]
    /// Whether numbers are stored least significant byte first (`II`) rather than `MM`.
    let littleEndian: Bool

    /// The TIFF in `blob`, with or without the `Exif\0\0` prefix; nil without a TIFF header.
    init?(_ blob: [UInt8]) {
        let body = blob.starts(with: Self.exifPrefix) ? Array(blob.dropFirst(Self.exifPrefix.count)) : blob
        guard body.count >= 8 else { return nil }
        switch (body[0], body[1], body[2], body[3]) {
        case (0x49, 0x49, 0x2A, 0x00): littleEndian = true
        case (0x4D, 0x4D, 0x00, 0x2A): littleEndian = false
        default: return nil  // BigTIFF (43) and anything else
        }
        bytes = body
    }

    /// The offset of IFD0, from the header.
    var firstDirectoryOffset: Int? { uint32(at: 4) }

    /// Whether `range` lies within the bytes.
    func contains(_ range: Range<Int>) -> Bool {
        range.lowerBound >= 0 && range.upperBound <= bytes.count
    }

    /// The two-byte number at `offset`, in the structure's byte order.
    func uint16(at offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    /// The four-byte number at `offset`, in the structure's byte order.
    func uint32(at offset: Int) -> Int? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return littleEndian ? second << 16 | first : first << 16 | second
    }

    /// Writes `value` as two bytes at `offset`; does nothing outside the bytes.
    mutating func setUInt16(_ value: Int, at offset: Int) {
        guard offset >= 0, offset <= bytes.count - 2 else { return }
        let high = UInt8(truncatingIfNeeded: value >> 8), low = UInt8(truncatingIfNeeded: value)
        bytes[offset] = littleEndian ? low : high
        bytes[offset + 1] = littleEndian ? high : low
    }

    /// Writes `value` as four bytes at `offset`; does nothing outside the bytes.
    mutating func setUInt32(_ value: Int, at offset: Int) {
        guard offset >= 0, offset <= bytes.count - 4 else { return }
        let high = value >> 16 & 0xFFFF, low = value & 0xFFFF
        setUInt16(littleEndian ? low : high, at: offset)
        setUInt16(littleEndian ? high : low, at: offset + 2)
    }

    /// Overwrites `range` with `replacement`, which must have the same length.
    mutating func replace(_ range: Range<Int>, with replacement: [UInt8]) {
        guard contains(range), range.count == replacement.count else { return }
        bytes.replaceSubrange(range, with: replacement)
    }

    /// Sets every byte of `range` (clamped to the bytes) to zero.
    mutating func zero(_ range: Range<Int>) {
        let clamped = range.clamped(to: 0..<bytes.count)
        for index in clamped { bytes[index] = 0 }
    }

    /// The IFD at `offset`, or nil when its table does not fit in the bytes.
    ///
    /// Offsets below 8 would put the table over the header, which no writer does.
    func directory(at offset: Int) -> TIFFDirectory? {
        guard offset >= 8, let count = uint16(at: offset) else { return nil }
        let end = offset + 2 + 12 * count + 4
        guard end <= bytes.count, let next = uint32(at: end - 4) else { return nil }
        var entries: [TIFFEntry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let position = offset + 2 + 12 * index
            guard let tag = uint16(at: position), let type = uint16(at: position + 2),
                  let valueCount = uint32(at: position + 4) else { return nil }
            entries.append(TIFFEntry(tag: tag, type: type, count: valueCount, position: position,
                                     valueRange: valueRange(type: type, count: valueCount, entry: position)))
        }
        return TIFFDirectory(offset: offset, entries: entries, nextOffset: next)
    }

    /// The numbers of a SHORT or LONG entry (strip offsets, thumbnail lengths), or nil.
    func integers(of entry: TIFFEntry) -> [Int]? {
        guard let range = entry.valueRange else { return nil }
        switch entry.type {
        case 3: return stride(from: range.lowerBound, to: range.upperBound, by: 2).compactMap { uint16(at: $0) }
        case 4: return stride(from: range.lowerBound, to: range.upperBound, by: 4).compactMap { uint32(at: $0) }
        default: return nil
        }
    }

    /// Where an entry's value lies: inline in its last four bytes when it fits, else where they
    /// point; nil when that is outside the bytes. A type TIFF does not define is read as its four
    /// inline bytes, as readers skip it.
    private func valueRange(type: Int, count: Int, entry: Int) -> Range<Int>? {
        let field = entry + 8
        guard let unit = Self.typeSizes[type] else { return field..<(field + 4) }
        // count < 2^32 and unit <= 8: the product fits an Int, but may exceed the bytes.
        let size = unit * count
        if size <= 4 { return field..<(field + size) }
        guard size <= bytes.count, let start = uint32(at: field), start <= bytes.count - size else { return nil }
        return start..<(start + size)
    }

    /// Bytes per value of each TIFF 6.0 field type, and IFD (13) from the EXIF specification.
    private static let typeSizes: [Int: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2,
                                                9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
}

/// One IFD: its table's place, its entries and the offset of the IFD after it (0 for none).
struct TIFFDirectory {
    /// Where the table starts (its two-byte entry count).
    let offset: Int
    /// The entries in table order.
    let entries: [TIFFEntry]
    /// The offset of the next IFD in the chain, 0 at its end.
    let nextOffset: Int

    /// The table's bytes: count, entries and next-IFD offset.
    var tableRange: Range<Int> { offset..<(offset + 2 + 12 * entries.count + 4) }

    /// Whether every entry's value lies within the bytes.
    var valuesInRange: Bool { entries.allSatisfy { $0.valueRange != nil } }

    /// The first entry with `tag`.
    func entry(_ tag: Int) -> TIFFEntry? { entries.first { $0.tag == tag } }
}

/// One 12-byte IFD entry.
struct TIFFEntry {
    /// The tag number (0x0112 Orientation, 0x8825 GPSInfo, …).
    let tag: Int
    /// The field type (2 ASCII, 3 SHORT, 4 LONG, …).
    let type: Int
    /// The number of values.
    let count: Int
    /// Where the entry's 12 bytes start.
    let position: Int
    /// Where its value lies (see `TIFFBytes.valueRange`); nil when outside the bytes.
    let valueRange: Range<Int>?

    /// The entry's own 12 bytes.
    var range: Range<Int> { position..<(position + 12) }

    /// Its value's bytes when they lie outside the entry (more than four bytes).
    var outOfLineRange: Range<Int>? {
        guard let valueRange, !range.contains(valueRange.lowerBound) else { return nil }
        return valueRange
    }
}
