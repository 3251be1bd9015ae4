import Foundation

/// Checks a PNG's chunk headers before libpng reads them.
///
/// libpng allocates a chunk's declared length before reading it, so a 57-byte file that
/// declares a 1 GiB `iCCP` or `tEXt` chunk (libpng's own `crashers/huge_*_chunk.png`) costs a
/// gigabyte of memory and seconds of zero-filling. Every chunk before the image data must fit
/// in the file; the walk stops at the first IDAT, where the metadata ends and a short file is
/// a matter for `--decode-strictness`.
enum PNGPreflight {
    /// Why the PNG at `path` must not be opened, or nil when its chunks before the image data
    /// fit in the file (or it cannot be read here: libvips will report that).
    static func problem(path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd() else { return nil }
        var offset: UInt64 = 8
        while offset + 8 <= size {
            guard (try? file.seek(toOffset: offset)) != nil,
                  let header = try? file.read(upToCount: 8), header.count == 8 else { return nil }
            let length = header.prefix(4).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let type = String(decoding: header.suffix(4), as: UTF8.self)
            if type == "IDAT" { return nil }
            let end = offset + 12 + length
            guard end <= size else {
                return "PNG chunk \(type) declares \(length) bytes but the file has "
                    + "\(size - min(size, offset + 8)) left"
            }
            offset = end
        }
        return nil
    }
}
