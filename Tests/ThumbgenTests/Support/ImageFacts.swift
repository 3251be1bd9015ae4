import CVips
import Foundation
import Thumbgen

/// What libvips reads from an output's header, every frame counted: size, bands, colour
/// interpretation, frames. Used to check outputs by what they are, not only that they exist.
struct ImageFacts: Sendable, CustomStringConvertible {
    var loader: String
    /// Width, and height of one frame.
    var width: Int, height: Int
    var bands: Int
    /// libvips' name for the interpretation: `srgb`, `b-w`, `cmyk`, ...
    var interpretation: String
    /// Bits per band value: 8 for uchar.
    var isEightBit: Bool
    var frames: Int
    var hasICCProfile: Bool

    var description: String {
        "\(loader) \(width)x\(height) \(bands) bands \(interpretation) \(frames) frames"
    }

    /// The mean of every band value of `url`'s first frame, in its own range (0–65535 for
    /// 16-bit).
    static func mean(_ url: URL) throws -> Double {
        try VipsRuntime.start()
        guard let image = testLoadImage(url.path, access: VIPS_ACCESS_RANDOM, failOn: VIPS_FAIL_ON_NONE) else {
            throw FixtureError("loading \(url.lastPathComponent)")
        }
        defer { tg_unref(image) }
        var mean = 0.0
        guard tg_avg(image, &mean) == 0 else { throw FixtureError("averaging \(url.lastPathComponent)") }
        return mean
    }

    /// The mean band value of each frame of `url`.
    static func frameMeans(_ url: URL) throws -> [Double] {
        try VipsRuntime.start()
        guard let image = testLoadImage(url.path, access: VIPS_ACCESS_RANDOM, failOn: VIPS_FAIL_ON_NONE, allPages: true) else {
            throw FixtureError("loading \(url.lastPathComponent)")
        }
        defer { tg_unref(image) }
        let width = vips_image_get_width(image), pageHeight = vips_image_get_page_height(image)
        return try (0..<Int(vips_image_get_height(image) / pageHeight)).map { index in
            var frame: UnsafeMutablePointer<VipsImage>?
            guard tg_extract_area(image, &frame, 0, Int32(index) * pageHeight, width, pageHeight) == 0,
                  let frame else { throw FixtureError("frame \(index)") }
            defer { tg_unref(frame) }
            var mean = 0.0
            guard tg_avg(frame, &mean) == 0 else { throw FixtureError("averaging frame \(index)") }
            return mean
        }
    }

    /// Reads the header of `url` with every frame loaded.
    static func read(_ url: URL) throws -> ImageFacts {
        try VipsRuntime.start()
        guard let image = testLoadImage(url.path, access: VIPS_ACCESS_RANDOM, failOn: VIPS_FAIL_ON_NONE, allPages: true)
            ?? testLoadImage(url.path, access: VIPS_ACCESS_RANDOM, failOn: VIPS_FAIL_ON_NONE)
        else { throw FixtureError("reading the header of \(url.lastPathComponent)") }
        defer { tg_unref(image) }
        var loader: UnsafePointer<CChar>?
        _ = vips_image_get_string(image, "vips-loader", &loader)
        let interpretation = vips_enum_nick(vips_interpretation_get_type(),
                                            Int32(vips_image_get_interpretation(image).rawValue))
        return ImageFacts(
            loader: loader.map { String(cString: $0) } ?? "?",
            width: Int(vips_image_get_width(image)),
            height: Int(vips_image_get_page_height(image)),
            bands: Int(vips_image_get_bands(image)),
            interpretation: interpretation.map { String(cString: $0) } ?? "?",
            isEightBit: vips_image_get_format(image) == VIPS_FORMAT_UCHAR,
            frames: Int(vips_image_get_height(image) / max(1, vips_image_get_page_height(image))),
            hasICCProfile: vips_image_get_typeof(image, "icc-profile-data") != 0)
    }
}
