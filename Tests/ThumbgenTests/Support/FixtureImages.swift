import CVips
import Foundation
import Thumbgen

/// An 8-bit RGB or RGBA colour used to paint fixtures and to check output pixels.
struct Colour: Equatable, Sendable, CustomStringConvertible {
    var r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255

    static let red = Colour(r: 220, g: 20, b: 20)
    static let green = Colour(r: 20, g: 200, b: 40)
    static let blue = Colour(r: 30, g: 40, b: 210)
    static let yellow = Colour(r: 240, g: 220, b: 30)
    static let magenta = Colour(r: 255, g: 0, b: 255)
    static let white = Colour(r: 255, g: 255, b: 255)

    var rgb: [UInt8] { [r, g, b] }
    var description: String { "(\(r),\(g),\(b),\(a))" }
}

/// A failure while making or reading a fixture, with libvips' own error text.
struct FixtureError: Error, CustomStringConvertible {
    var description: String

    init(_ what: String) {
        var detail = ""
        if let text = vips_error_buffer_copy() {
            detail = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            g_free(text)
        }
        description = detail.isEmpty ? what : "\(what): \(detail)"
    }
}

/// Uncompressed 8-bit pixels, row by row, `bands` values per pixel.
struct RawImage: Sendable {
    var width: Int, height: Int, bands: Int
    var pixels: [UInt8]

    /// An image whose pixel at (x, y) is `paint(x, y)`; RGBA when `alpha` is true.
    init(width: Int, height: Int, alpha: Bool = false, paint: (Int, Int) -> Colour) {
        self.width = width; self.height = height; bands = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        var i = 0
        for y in 0..<height {
            for x in 0..<width {
                let c = paint(x, y)
                pixels[i] = c.r; pixels[i + 1] = c.g; pixels[i + 2] = c.b
                if alpha { pixels[i + 3] = c.a }
                i += bands
            }
        }
        self.pixels = pixels
    }

    /// Four flat quadrants: top-left, top-right, bottom-left, bottom-right, so that crop,
    /// gravity and orientation can be checked by sampling one pixel in each.
    static func quadrants(width: Int, height: Int,
                          _ colours: [Colour] = [.red, .green, .blue, .yellow]) -> RawImage {
        RawImage(width: width, height: height) { x, y in
            colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
        }
    }

    /// The pixels as a new libvips image, which the caller releases with `tg_unref`.
    func vipsImage() throws -> UnsafeMutablePointer<VipsImage> {
        try VipsRuntime.start()
        guard let image = pixels.withUnsafeBytes({
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height),
                                            Int32(bands), VIPS_FORMAT_UCHAR)
        }) else { throw FixtureError("vips_image_new_from_memory_copy") }
        return image
    }

    /// Encodes the pixels with one of the shims thumbgen itself uses.
    func encoded(as format: OutputFormat, quality: Int = 90, pngCompression: Int = 6) throws -> Data {
        let image = try vipsImage()
        defer { tg_unref(image) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        let q = Int32(quality)
        switch format {
        case .jpeg: status = tg_jpegsave_buffer(image, &buffer, &length, q, 0, 0)
        case .png: status = tg_pngsave_buffer(image, &buffer, &length, Int32(pngCompression), Int32(VIPS_FOREIGN_PNG_FILTER_NONE.rawValue), 0, 100)
        case .webp: status = tg_webpsave_buffer(image, &buffer, &length, q, 4, 0, 0)
        case .avif: status = tg_avifsave_buffer(image, &buffer, &length, q, 2, 0, 1)
        case .jxl: status = tg_jxlsave_buffer(image, &buffer, &length, q, 3, 0)
        case .gif: status = tg_gifsave_buffer(image, &buffer, &length, 7)
        case .tiff: status = tg_tiffsave_buffer(image, &buffer, &length, 1)
        }
        guard status == 0, let buffer else { throw FixtureError("saving a \(format) fixture") }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// Encodes the pixels as an animation whose frames are `pageHeight` rows each (GIF or WebP).
    func encodedAnimation(pageHeight: Int, as format: OutputFormat) throws -> Data {
        let image = try vipsImage()
        defer { tg_unref(image) }
        tg_set_int(image, "page-height", Int32(pageHeight))
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = format == .gif ? tg_gifsave_buffer(image, &buffer, &length, 7)
            : tg_webpsave_buffer(image, &buffer, &length, 90, 4, 0, 0)
        guard status == 0, let buffer else { throw FixtureError("saving an animated \(format) fixture") }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// Encodes and writes the image to `url`.
    func write(to url: URL, as format: OutputFormat, quality: Int = 90) throws {
        try encoded(as: format, quality: quality).write(to: url)
    }
}

/// Byte-level edits of encoded fixtures.
enum FixtureBytes {
    /// A JPEG with an EXIF APP1 segment (big-endian TIFF, one IFD0 entry: Orientation)
    /// inserted right after its SOI marker.
    static func jpeg(_ jpeg: Data, withExifOrientation orientation: UInt16) -> Data {
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + exif(orientation: orientation)
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + payload
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: segment)
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// An EXIF block (big-endian TIFF) holding one IFD0 entry: Orientation.
    static func exif(orientation: UInt16) -> [UInt8] {
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]  // "MM", 42, IFD at 8
        tiff += [0x00, 0x01]                                                  // one entry
        tiff += [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]              // 0x0112 SHORT ×1
        tiff += [UInt8(orientation >> 8), UInt8(orientation & 0xff), 0x00, 0x00]
        tiff += [0x00, 0x00, 0x00, 0x00]                                      // no next IFD
        return tiff
    }

    /// A PNG with an `eXIf` chunk holding `orientation`, right after IHDR.
    static func png(_ png: Data, withExifOrientation orientation: UInt16) -> Data {
        PNGBytes.inserting([PNGBytes.chunk("eXIf", exif(orientation: orientation))], into: png)
    }

    /// A JPEG with `profile` embedded as APP2 `ICC_PROFILE` segments (split as the ICC spec
    /// says), right after its SOI marker.
    static func jpeg(_ jpeg: Data, withICCProfile profile: Data) -> Data {
        let chunkSize = 65_519
        let chunks = stride(from: 0, to: profile.count, by: chunkSize).map {
            profile.subdata(in: $0..<min($0 + chunkSize, profile.count))
        }
        var out = Data(jpeg.prefix(2))
        for (index, chunk) in chunks.enumerated() {
            let payload = Data("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(chunks.count)] + chunk
            let length = payload.count + 2
            out.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xff)])
            out.append(payload)
        }
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// libvips' own CMYK profile (the one it falls back on), as bytes.
    static func cmykProfile() throws -> Data {
        try libvipsProfile("cmyk")
    }

    /// One of the profiles built into libvips (`srgb`, `p3`, `cmyk`), as bytes.
    static func libvipsProfile(_ name: String) throws -> Data {
        try VipsRuntime.start()
        let pixel: [UInt8] = [200, 40, 40]
        guard let image = pixel.withUnsafeBytes({
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, 1, 1, 3, VIPS_FORMAT_UCHAR)
        }) else { throw FixtureError("a 1×1 image") }
        defer { tg_unref(image) }
        var cmyk: UnsafeMutablePointer<VipsImage>?
        guard tg_icc_transform(image, &cmyk, name, "srgb") == 0, let cmyk else {
            throw FixtureError("icc_transform to \(name)")
        }
        defer { tg_unref(cmyk) }
        var blob: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(cmyk, "icc-profile-data", &blob, &length) == 0, let blob else {
            throw FixtureError("reading the \(name) profile")
        }
        return Data(bytes: blob, count: length)
    }

    /// The first `fraction` of `data`: a truncated file.
    static func truncated(_ data: Data, keeping fraction: Double = 0.5) -> Data {
        Data(data.prefix(Int(Double(data.count) * fraction)))
    }

    /// Whether `data` contains `needle` anywhere.
    static func contains(_ data: Data, _ needle: [UInt8]) -> Bool {
        data.range(of: Data(needle)) != nil
    }
}

extension RawImage {
    /// The image scaled up `factor` times by libvips and encoded as PNG: a large source made
    /// quickly (filling megapixels from Swift is slow in debug builds).
    func scaledPNG(by factor: Double, compression: Int = 1) throws -> Data {
        try VipsRuntime.start()
        guard let small = pixels.withUnsafeBytes({
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height),
                                            Int32(bands), VIPS_FORMAT_UCHAR)
        }) else { throw FixtureError("vips_image_new_from_memory_copy") }
        defer { tg_unref(small) }
        var large: UnsafeMutablePointer<VipsImage>?
        guard tg_resize(small, &large, factor, factor, VIPS_KERNEL_LINEAR) == 0, let large else {
            throw FixtureError("scaling a fixture")
        }
        defer { tg_unref(large) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard tg_pngsave_buffer(large, &buffer, &length, Int32(compression), Int32(VIPS_FOREIGN_PNG_FILTER_NONE.rawValue), 0, 100) == 0, let buffer else {
            throw FixtureError("saving a large PNG fixture")
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}
