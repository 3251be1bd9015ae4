import CVips
import Foundation
import Thumbgen

/// Decoded 8-bit pixels of an image file, read through libvips without any orientation.
struct PixelImage: Sendable {
    let width: Int, height: Int, bands: Int
    let pixels: [UInt8]

    /// Reads `url` at full size; `resizedTo` scales it first (lanczos3) to exactly that size.
    static func load(_ url: URL, resizedTo size: (width: Int, height: Int)? = nil) throws -> PixelImage {
        try VipsRuntime.start()
        guard let loaded = testLoadImage(url.path, access: VIPS_ACCESS_RANDOM, failOn: VIPS_FAIL_ON_NONE) else {
            throw FixtureError("loading \(url.lastPathComponent)")
        }
        var image = loaded
        defer { tg_unref(image) }
        if let size {
            let hscale = Double(size.width) / Double(vips_image_get_width(image))
            let vscale = Double(size.height) / Double(vips_image_get_height(image))
            var out: UnsafeMutablePointer<VipsImage>?
            guard tg_resize(image, &out, hscale, vscale, VIPS_KERNEL_LANCZOS3) == 0, let out else {
                throw FixtureError("resizing \(url.lastPathComponent)")
            }
            tg_unref(image)
            image = out
        }
        guard vips_image_get_format(image) == VIPS_FORMAT_UCHAR else {
            throw FixtureError("\(url.lastPathComponent) is not 8-bit")
        }
        var length = 0
        guard let memory = vips_image_write_to_memory(image, &length) else {
            throw FixtureError("decoding \(url.lastPathComponent)")
        }
        defer { g_free(memory) }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: memory, count: length))
        return PixelImage(width: Int(vips_image_get_width(image)),
                          height: Int(vips_image_get_height(image)),
                          bands: Int(vips_image_get_bands(image)), pixels: bytes)
    }

    /// The band values of the pixel at (x, y).
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let start = (y * width + x) * bands
        return Array(pixels[start..<start + bands])
    }

    /// Whether the pixel at (x, y) is `colour` (colour bands, and alpha when there is one),
    /// each band within `tolerance`.
    func pixel(_ x: Int, _ y: Int, is colour: Colour, tolerance: Int = 4) -> Bool {
        let p = pixel(x, y)
        let expected = bands == 4 ? colour.rgb + [colour.a] : colour.rgb
        return zip(p, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    /// The mean absolute difference per colour band (0–255) from `other`, of the same size.
    func meanAbsoluteDifference(from other: PixelImage) -> Double? {
        guard width == other.width, height == other.height else { return nil }
        let colourBands = min(3, bands, other.bands)
        var total = 0
        for i in 0..<(width * height) {
            for b in 0..<colourBands {
                total += abs(Int(pixels[i * bands + b]) - Int(other.pixels[i * other.bands + b]))
            }
        }
        return Double(total) / Double(width * height * colourBands)
    }
}

/// The container format of encoded bytes, from their magic numbers.
enum Magic {
    static func isJPEG(_ d: Data) -> Bool { d.starts(with: [0xFF, 0xD8, 0xFF]) }
    static func isPNG(_ d: Data) -> Bool { d.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }
    static func isWebP(_ d: Data) -> Bool {
        d.count >= 12 && d.prefix(4) == Data("RIFF".utf8) && d.subdata(in: 8..<12) == Data("WEBP".utf8)
    }
    /// A bare JPEG XL codestream (`FF 0A`) or its ISO-BMFF container.
    static func isJXL(_ d: Data) -> Bool {
        d.starts(with: [0xFF, 0x0A]) || d.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20])
    }
    static func isGIF(_ d: Data) -> Bool { d.starts(with: Array("GIF8".utf8)) }
    static func isTIFF(_ d: Data) -> Bool {
        d.starts(with: [0x49, 0x49, 0x2A, 0x00]) || d.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
    }
    /// An ISO-BMFF `ftyp` box first, whose major brand is `avif` or `avis`.
    static func isAVIF(_ d: Data) -> Bool {
        guard d.count >= 12, d.subdata(in: 4..<8) == Data("ftyp".utf8) else { return false }
        let brand = d.subdata(in: 8..<12)
        return brand == Data("avif".utf8) || brand == Data("avis".utf8)
    }
}
