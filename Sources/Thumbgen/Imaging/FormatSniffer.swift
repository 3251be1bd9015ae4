import Foundation

/// Names a file's image format from its first bytes, in Swift, before any libvips code runs.
///
/// `vips_foreign_find_load` (and `vips_image_new_from_file`, which calls it) runs the sniffer of
/// every loader libvips has, blocked ones included; one of those, the SVG sniffer of libvips
/// 8.14, spins for ever in zlib on a 118-byte gzip file with trailing bytes. So thumbgen reads
/// the magic bytes itself and then calls exactly one loader by name. Only a loader opted in with
/// `--enable-loader` is asked about the file with its own sniffer (`vips_foreign_is_a`), and
/// only when none of the built-in formats matched.
enum FormatSniffer {
    /// How many bytes the signatures below need.
    static let headerLength = 32

    /// The libvips loader nickname for a file starting with `bytes`, among the built-in formats
    /// (JPEG, PNG, WebP, GIF, TIFF, HEIF/AVIF, JPEG XL); nil when none matches. The signatures
    /// are the ones libvips' own `is_a` checks use, so that both agree on every file.
    static func loader(forHeader bytes: [UInt8]) -> String? {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count
                && zip(bytes[offset...], signature).allSatisfy { $0 == $1 }
        }
        if starts([0xFF, 0xD8]) { return "jpegload" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "pngload" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "webpload" }
        if starts(Array("GIF8".utf8)) { return "gifload" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A])
            || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) {
            return "tiffload"
        }
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12,
           heifBrands.contains(String(decoding: bytes[8..<12], as: UTF8.self)) {
            return "heifload"
        }
        if starts([0xFF, 0x0A])
            || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return "jxlload"
        }
        return nil
    }

    /// How many bytes `vectorLoader(forHeader:)` looks at: libvips' SVG sniffer reads as many.
    static let vectorHeaderLength = 1000

    /// The loader of a vector format whose libvips sniffer would claim a file starting with
    /// `bytes` (`pdfload`, `svgload`), by the same rules, in Swift: a PDF has `%PDF` within its
    /// first 32 bytes; an SVG has `<svg`, in any case, within its first 1,000, after valid
    /// UTF-8. For the folder walk, which takes such files only when their loader is enabled and
    /// must not run an untrusted loader's code in the parent to decide (a compressed SVG, which
    /// libvips' sniffer inflates first, is not taken).
    static func vectorLoader(forHeader bytes: [UInt8]) -> String? {
        let pdfMarker = Array("%PDF".utf8)
        if bytes.count >= 32, (0..<28).contains(where: { bytes[$0..<$0 + 4].elementsEqual(pdfMarker) }) {
            return "pdfload"
        }
        let head = bytes.prefix(vectorHeaderLength)
        let svgMarker = Array("<svg".utf8)
        guard head.count >= svgMarker.count else { return nil }
        func lowered(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
        for start in head.startIndex...(head.endIndex - svgMarker.count)
        where zip(head[start...], svgMarker).allSatisfy({ lowered($0) == $1 }) {
            return String(validating: head[..<start], as: UTF8.self) != nil ? "svgload" : nil
        }
        return nil
    }

    /// The major brands libheif reads (HEIC, HEIF image sequences and AVIF).
    private static let heifBrands: Set<String> = [
        "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "avif", "avis",
    ]

    /// The first `length` bytes of the file at `path` (fewer for a shorter file); nil
    /// when it cannot be read.
    static func header(path: String, length: Int = headerLength) -> [UInt8]? {
        header(opening: open(path, O_RDONLY | O_CLOEXEC), length: length)
    }

    /// The same for a path given as bytes, which need not be UTF-8 (a name a folder walk found).
    static func header(pathBytes: [UInt8], length: Int = headerLength) -> [UInt8]? {
        let terminated = pathBytes.map { CChar(bitPattern: $0) } + [0]
        return header(opening: open(terminated, O_RDONLY | O_CLOEXEC), length: length)
    }

    private static func header(opening file: Int32, length: Int) -> [UInt8]? {
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: length)
        let filled = bytes.withUnsafeMutableBytes { DescriptorIO.readFully(file, into: $0) }
        return Array(bytes.prefix(filled))
    }
}
