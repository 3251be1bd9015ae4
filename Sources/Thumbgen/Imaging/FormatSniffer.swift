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

    /// The major brands libheif reads (HEIC, HEIF image sequences and AVIF).
    private static let heifBrands: Set<String> = [
        "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "avif", "avis",
    ]

    /// The first `headerLength` bytes of the file at `path` (fewer for a shorter file); nil
    /// when it cannot be read.
    static func header(path: String) -> [UInt8]? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: headerLength)
        let filled = bytes.withUnsafeMutableBytes { DescriptorIO.readFully(file, into: $0) }
        return Array(bytes.prefix(filled))
    }
}
