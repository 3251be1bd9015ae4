import Foundation

extension ImageRights {
    /// Artist, in IFD0.
    static let artistTag = 0x013B
    /// Copyright, in IFD0.
    static let copyrightTag = 0x8298

    /// The creators and copyright in EXIF (with or without `Exif\0\0`); empty when unreadable.
    ///
    /// Artist often holds several names joined by "; " (the form exiftool and Windows write).
    /// Copyright may hold a photographer's and an editor's notice, each ended by a NUL (EXIF 2.3
    /// 4.6.5); both are kept, joined by "; ", the photographer's first.
    init(exif: [UInt8]) {
        self.init()
        guard let tiff = TIFFBytes(exif), let offset = tiff.firstDirectoryOffset,
              let ifd0 = tiff.directory(at: offset) else { return }
        if let artist = Self.text(ifd0.entry(Self.artistTag), in: tiff) {
            creators = artist.components(separatedBy: ";")
        }
        if let notice = Self.text(ifd0.entry(Self.copyrightTag), in: tiff) {
            copyright = notice.components(separatedBy: "\0").compactMap(RightsText.cleaned).joined(separator: "; ")
        }
        self = cleaned()
    }

    /// A little-endian TIFF whose IFD0 holds only Artist and Copyright, for outputs that keep
    /// the copyright without the rest of the EXIF; nil when there is neither.
    ///
    /// EXIF ASCII is meant to be 7-bit, but UTF-8 is what current readers (exiftool, libexif,
    /// Windows) accept and what this module's reader expects, so it is written as UTF-8.
    func exifBlock() -> [UInt8]? {
        var fields: [(tag: Int, value: [UInt8])] = []
        if !creators.isEmpty {
            fields.append((Self.artistTag, Array(RightsText.withoutNUL(creators.joined(separator: "; ")).utf8) + [0]))
        }
        if let copyright {
            fields.append((Self.copyrightTag, Array(RightsText.withoutNUL(copyright).utf8) + [0]))
        }
        guard !fields.isEmpty else { return nil }
        var header: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + Self.littleEndian32(8)
        header += Self.littleEndian16(fields.count)
        // Values longer than four bytes follow the table, each at an even offset (TIFF 6.0 2).
        var data: [UInt8] = []
        let dataStart = 8 + 2 + 12 * fields.count + 4
        for field in fields {
            header += Self.littleEndian16(field.tag) + Self.littleEndian16(2) + Self.littleEndian32(field.value.count)
            if field.value.count <= 4 {
                header += field.value + [UInt8](repeating: 0, count: 4 - field.value.count)
            } else {
                header += Self.littleEndian32(dataStart + data.count)
                data += field.value
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return header + Self.littleEndian32(0) + data
    }

    /// The ASCII value of `entry`, decoded (see `RightsText.decode`), or nil.
    private static func text(_ entry: TIFFEntry?, in tiff: TIFFBytes) -> String? {
        // ASCII, BYTE and UNDEFINED all occur for these tags in the wild.
        guard let entry, [1, 2, 7].contains(entry.type), let range = entry.valueRange else { return nil }
        var bytes = tiff.bytes[range]
        while bytes.last == 0 { bytes.removeLast() }
        return RightsText.decode(bytes)
    }

    /// `value` as two little-endian bytes.
    private static func littleEndian16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    /// `value` as four little-endian bytes.
    private static func littleEndian32(_ value: Int) -> [UInt8] {
        littleEndian16(value) + littleEndian16(value >> 16)
    }
}
