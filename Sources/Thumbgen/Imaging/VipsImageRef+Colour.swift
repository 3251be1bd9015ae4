import CVips

/// Colour spaces and band formats in Swift terms, and the conversions between them.
///
/// Both are structs with named values rather than enums, so that a space or format thumbgen
/// has no name for (scRGB, LAB, float, ...) still compares and converts back as libvips gave it.
extension VipsImageRef {
    /// How libvips interprets an image's bands.
    struct ColourSpace: Equatable, Sendable {
        /// The libvips value; only this file reads it.
        fileprivate let interpretation: VipsInterpretation

        /// 8-bit sRGB.
        static let sRGB = ColourSpace(interpretation: VIPS_INTERPRETATION_sRGB)
        /// Device RGB without a named profile.
        static let rgb = ColourSpace(interpretation: VIPS_INTERPRETATION_RGB)
        /// 16-bit RGB.
        static let rgb16 = ColourSpace(interpretation: VIPS_INTERPRETATION_RGB16)
        /// One band of grey (libvips' `B_W`).
        static let grey = ColourSpace(interpretation: VIPS_INTERPRETATION_B_W)
        /// One band of 16-bit grey.
        static let grey16 = ColourSpace(interpretation: VIPS_INTERPRETATION_GREY16)
        /// Four bands of ink.
        static let cmyk = ColourSpace(interpretation: VIPS_INTERPRETATION_CMYK)
        /// Bands with no colour meaning libvips knows.
        static let multiband = ColourSpace(interpretation: VIPS_INTERPRETATION_MULTIBAND)
    }

    /// The numeric format of each band value.
    struct BandFormat: Equatable, Sendable {
        /// The libvips value; only this file reads it.
        fileprivate let format: VipsBandFormat

        /// Unsigned 8-bit integers.
        static let uint8 = BandFormat(format: VIPS_FORMAT_UCHAR)
        /// Unsigned 16-bit integers.
        static let uint16 = BandFormat(format: VIPS_FORMAT_USHORT)
    }

    /// How libvips interprets the pixels (sRGB, grey, CMYK, ...).
    var colourSpace: ColourSpace { ColourSpace(interpretation: vips_image_get_interpretation(pointer)) }
    /// The numeric format of each band value.
    var bandFormat: BandFormat { BandFormat(format: vips_image_get_format(pointer)) }

    /// Converts to sRGB through the embedded ICC profile, or `fallbackProfile` without one;
    /// a 16-bit image comes out as 16-bit RGB16, any other as 8-bit sRGB.
    func iccToSRGB(fallbackProfile: String) throws(ImagingError) -> VipsImageRef {
        try iccTransform(to: "srgb", fallbackProfile: fallbackProfile)
    }

    /// Converts through the embedded ICC profile, or `fallbackProfile` without one, to the
    /// profile `target` (a libvips name or a file, attached to the result); 16-bit stays 16-bit.
    func iccTransform(to target: String, fallbackProfile: String) throws(ImagingError) -> VipsImageRef {
        // At 8 bits libvips would clip a 16-bit alpha band to 255 (opaque) instead of scaling it.
        let depth: Int32 = bandFormat == .uint16 ? 16 : 8
        return try Self.make("icc_transform") {
            tg_icc_transform_depth(pointer, $0, target, fallbackProfile, depth)
        }
    }

    /// Converts to another colour space (libvips picks the route).
    func colourspace(_ space: ColourSpace) throws(ImagingError) -> VipsImageRef {
        try Self.make("colourspace") { tg_colourspace(pointer, $0, space.interpretation) }
    }

    /// Converts band values to `format`, clipping values out of its range.
    func cast(_ format: BandFormat) throws(ImagingError) -> VipsImageRef {
        try Self.make("cast") { tg_cast_unshifted(pointer, $0, format.format) }
    }
}
