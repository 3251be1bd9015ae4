/// Step 3 of `ThumbnailRenderer`: the pixels into the output's colour (`ColourTarget`).
extension ThumbnailRenderer {
    /// The colour `spec` asks of `format`'s output, resolved for the decoded source.
    static func colourTarget(_ decoded: DecodedImage, spec: ThumbnailSpec, format: OutputFormat) -> ColourTarget {
        ColourTarget.resolve(spec.colour, source: decoded.image, grey: format.keepsGrey && spec.background.isGrey)
    }

    /// The pixels as 8-bit sRGB (or Display P3, or the source's own space, as `target` says),
    /// or 8-bit grey when `grey` allows and the source is grey.
    func toOutputColour(_ input: VipsImageRef, grey: Bool, target: ColourTarget) throws(ImagingError) -> VipsImageRef {
        var image = input
        let sourceIsGrey = image.colourSpace == .grey || image.colourSpace == .grey16
        if target == .displayP3 { image = try toDisplayP3(image) }
        // Float scRGB and the like skip any profile: libvips hands lcms device values only as
        // 8- or 16-bit integers, so linear 0–1 floats would come out black. libvips' own
        // conversion below knows those spaces without a profile (as `vips thumbnail` does).
        if target == .sRGB, profileCanRead(image) {
            image = try throughProfile(image)
        }
        // From RGB16 or GREY16 this scales every band to 8 bits, alpha included.
        let target: VipsImageRef.ColourSpace = grey && sourceIsGrey ? .grey : .sRGB
        if image.colourSpace != target {
            image = try image.colourspace(target)
        }
        if image.bandFormat != .uint8 {
            image = try image.cast(.uint8)
        }
        return image
    }

    /// `image` converted to sRGB through its embedded profile, or through libvips' CMYK profile
    /// when it is CMYK without a usable one; unchanged otherwise. 16-bit stays 16-bit.
    private func throughProfile(_ image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        if image.hasICCProfile {
            // RGB pixels under a profile that is sRGB by its content are sRGB already.
            if image.bands - (image.hasAlpha ? 1 : 0) == 3, let profile = image.iccProfile,
               SRGBProfile.isSRGB(profile) {
                return image
            }
            // A broken embedded profile is ignored (as sharp and browsers do): the pixels are
            // still good, and libvips' own conversion takes over.
            do {
                return try image.iccToSRGB(fallbackProfile: "srgb")
            } catch {
                let bare = try image.withoutMetadata()
                return bare.colourSpace == .cmyk
                    ? try bare.iccToSRGB(fallbackProfile: "cmyk") : bare
            }
        }
        return image.colourSpace == .cmyk
            ? try image.iccToSRGB(fallbackProfile: "cmyk") : image
    }

    /// Whether an ICC transform can read `image`: 8- or 16-bit integers in a device space (RGB,
    /// grey or CMYK), the only pixels libvips passes to lcms without casting them to 8 bits.
    private func profileCanRead(_ image: VipsImageRef) -> Bool {
        let deviceSpaces: [VipsImageRef.ColourSpace] = [.sRGB, .rgb, .rgb16, .grey, .grey16, .cmyk,
                                                          .multiband]
        let format = image.bandFormat
        return (format == .uint8 || format == .uint16) && deviceSpaces.contains(image.colourSpace)
    }

    /// `image` converted to Display P3 through its profile (sRGB's without one, libvips' CMYK
    /// profile for CMYK): colours outside sRGB that the source holds survive. Pixels lcms
    /// cannot read (float scRGB and the like) are made sRGB first; 16-bit stays 16-bit.
    private func toDisplayP3(_ input: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        guard let p3 = VipsProfileFile.displayP3 else {
            throw .libvips(operation: "icc_transform", message: "could not make the Display P3 profile's memory file")
        }
        var image = input
        if !profileCanRead(image) {
            image = try toOutputColour(image, grey: false, target: .sRGB).withoutMetadata()
        } else if !image.hasICCProfile, image.colourSpace == .grey || image.colourSpace == .grey16 {
            // The sRGB fallback profile is an RGB one: grey pixels become RGB first.
            image = try image.colourspace(image.colourSpace == .grey16 ? .rgb16 : .sRGB)
        }
        let fallback = image.colourSpace == .cmyk ? "cmyk" : "srgb"
        do {
            return try image.iccTransform(to: p3, fallbackProfile: fallback)
        } catch {
            // A broken embedded profile is ignored, as under sRGB: the pixels are still good.
            return try image.withoutMetadata().iccTransform(to: p3, fallbackProfile: fallback)
        }
    }
}
