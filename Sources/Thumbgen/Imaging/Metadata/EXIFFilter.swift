/// Makes a source's EXIF fit to embed in an output (`--keep exif`).
///
/// The output's pixels are already upright and smaller, and the user asked to keep the EXIF, not
/// the place the picture was taken; so Orientation becomes 1, the GPS IFD is erased and IFD1
/// (the source's own thumbnail, a picture of the whole uncropped source) goes. XMP, IPTC and
/// Photoshop blocks that a TIFF writer put in IFD0 go too, as they may repeat the position.
///
/// The structure is edited in place, never laid out again: maker notes hold offsets that count
/// from the TIFF header, and only bytes that stay where they were keep those offsets right.
/// Erased parts are overwritten with zeros rather than cut out for the same reason, so the
/// blob keeps its length.
enum EXIFFilter {
    /// Orientation, in IFD0.
    static let orientationTag = 0x0112
    /// The pointer to the Exif IFD, in IFD0.
    static let exifIFDTag = 0x8769
    /// The pointer to the GPS IFD, in IFD0.
    static let gpsIFDTag = 0x8825

    /// Whole metadata blocks that TIFF writers put in IFD0 (XMP 0x02BC, IPTC 0x83BB, Photoshop
    /// resources 0x8649): they can repeat the GPS position (`exif:GPSLatitude` in XMP), and
    /// what the user keeps of them is written separately, so they go with the GPS IFD.
    private static let embeddedBlockTags: Set<Int> = [0x02BC, 0x83BB, 0x8649]

    /// Where the bytes of an IFD1 thumbnail lie: JPEGInterchangeFormat and its length, or the
    /// strips of an uncompressed one.
    private static let thumbnailTags = [(offsets: 0x0201, lengths: 0x0202), (offsets: 0x0111, lengths: 0x0117)]

    /// The source's EXIF (with or without `Exif\0\0`) for an upright output, as TIFF bytes
    /// without that prefix; nil when the structure is malformed (an offset outside the bytes, an
    /// IFD pointing back into one that must be kept), so that nothing half-filtered is written.
    static func forOutput(_ exif: [UInt8]) -> [UInt8]? {
        guard var tiff = TIFFBytes(exif), let ifd0Offset = tiff.firstDirectoryOffset,
              let ifd0 = tiff.directory(at: ifd0Offset), ifd0.valuesInRange else { return nil }
        // What stays must not be touched by what is erased; the two sets are checked at the end.
        // The header stays too: every offset counts from it.
        var kept = [0..<8, ifd0.tableRange]
        // IFD0's table is rewritten (entries removed, Orientation set, IFD1 unlinked), so what
        // stays outside it must not lie in it either.
        var outsideIFD0: [Range<Int>] = []
        var erased: [Range<Int>] = []
        var dropped: Set<Int> = []  // positions of IFD0 entries to remove
        var uprightAt: [Int] = []  // every Orientation: readers differ on which of two they take
        // A pointer given twice is malformed, and following each copy could cost quadratic time.
        let pointers = ifd0.entries.filter { $0.tag == gpsIFDTag || $0.tag == exifIFDTag }.map(\.tag)
        guard Set(pointers).count == pointers.count else { return nil }
        for entry in ifd0.entries {
            switch entry.tag {
            case gpsIFDTag:
                dropped.insert(entry.position)
                guard let gpsOffset = tiff.uint32(at: entry.position + 8) else { return nil }
                if gpsOffset == 0 { continue }  // some writers leave a pointer to nothing
                guard gpsOffset != ifd0Offset, let gps = tiff.directory(at: gpsOffset),
                      gps.valuesInRange else { return nil }
                erased += directoryRanges(gps)
            case orientationTag where entry.type == 3 && entry.count == 1:
                uprightAt.append(entry.position + 8)
            case orientationTag:
                dropped.insert(entry.position)  // not one SHORT: no reader agrees on it, and absent means 1
            case _ where embeddedBlockTags.contains(entry.tag):
                erased += entry.outOfLineRange.map { [$0] } ?? []
                dropped.insert(entry.position)
            case exifIFDTag:
                guard let exifOffset = tiff.uint32(at: entry.position + 8), exifOffset != ifd0Offset,
                      let exifIFD = tiff.directory(at: exifOffset) else { return nil }
                // Maker notes often carry offsets of their own that TIFF cannot check: values
                // outside the bytes are left as they are, only the table must be sound.
                let exifBytes = [exifIFD.tableRange] + exifIFD.entries.compactMap(\.valueRange)
                kept += exifBytes
                outsideIFD0 += exifBytes
            default:
                if let range = entry.valueRange { kept.append(range) }
                if let range = entry.outOfLineRange { outsideIFD0.append(range) }
            }
        }
        if ifd0.nextOffset != 0 {
            guard let ifd1 = tiff.directory(at: ifd0.nextOffset), ifd1.valuesInRange,
                  ![ifd0Offset, ifd1.offset].contains(ifd1.nextOffset) else { return nil }
            erased += directoryRanges(ifd1) + thumbnailRanges(ifd1, in: tiff)
        }
        let keptBytes = ByteRanges.merged(kept), erasedBytes = ByteRanges.merged(erased)
        guard !ByteRanges.overlap(keptBytes, erasedBytes),
              !ByteRanges.overlap([ifd0.tableRange], ByteRanges.merged(outsideIFD0)) else { return nil }
        for range in erasedBytes { tiff.zero(range) }
        // Before the removal, which moves the entries after a removed one up.
        for position in uprightAt { tiff.setUInt16(1, at: position) }
        removeEntries(at: dropped, from: ifd0, in: &tiff)
        return tiff.bytes
    }

    /// The bytes of an IFD that is erased: its table and every value stored outside it.
    private static func directoryRanges(_ directory: TIFFDirectory) -> [Range<Int>] {
        [directory.tableRange] + directory.entries.compactMap(\.valueRange)
    }

    /// The bytes of IFD1's thumbnail, clamped to the blob.
    ///
    /// Clamped, not refused: EXIF cut short at the 64 KB of a JPEG segment commonly ends inside
    /// its thumbnail, and bytes that are not in the blob need no erasing.
    private static func thumbnailRanges(_ ifd1: TIFFDirectory, in tiff: TIFFBytes) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        for tags in thumbnailTags {
            guard let offsetEntry = ifd1.entry(tags.offsets), let lengthEntry = ifd1.entry(tags.lengths),
                  let offsets = tiff.integers(of: offsetEntry), let lengths = tiff.integers(of: lengthEntry)
            else { continue }
            for (offset, length) in zip(offsets, lengths) where offset < tiff.bytes.count {
                ranges.append(offset..<(offset + min(length, tiff.bytes.count - offset)))
            }
        }
        return ranges
    }

    /// Removes the entries at `positions` from IFD0: later entries move up, the count drops,
    /// the next-IFD offset (now 0: IFD1 is gone) follows the last entry and the freed tail is
    /// zeroed.
    private static func removeEntries(at positions: Set<Int>, from ifd0: TIFFDirectory, in tiff: inout TIFFBytes) {
        let table = ifd0.tableRange
        let keptEntries = ifd0.entries.filter { !positions.contains($0.position) }
        let records = keptEntries.flatMap { tiff.bytes[$0.range] }
        tiff.setUInt16(keptEntries.count, at: table.lowerBound)
        let entriesStart = table.lowerBound + 2
        tiff.replace(entriesStart..<(entriesStart + records.count), with: records)
        let nextAt = entriesStart + records.count
        tiff.setUInt32(0, at: nextAt)
        tiff.zero((nextAt + 4)..<table.upperBound)
    }
}
