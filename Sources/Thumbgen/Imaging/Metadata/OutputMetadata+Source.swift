/// What a row's `colour` and `keep` put in its output, made from the decoded source's blobs.
extension OutputMetadata {
    /// The blocks for an output of `spec` whose colour resolved to `target`, from the decoded
    /// `source`; `greyOutput` when the output's pixels are grey (an RGB profile would not fit
    /// them, so `keep=icc` adds none). Blocks the source's metadata cannot give are left out.
    static func of(_ spec: ThumbnailSpec, target: ColourTarget, source: VipsImageRef,
                   greyOutput: Bool) -> OutputMetadata {
        var metadata = OutputMetadata()
        switch target {
        case .source: metadata.icc = source.iccProfile
        case .displayP3: metadata.icc = ICCProfileWriter.displayP3
        case .sRGB: metadata.icc = spec.keep.icc && !greyOutput ? ICCProfileWriter.sRGB : nil
        }
        guard spec.keep.keepsBlocks else { return metadata }
        let exif = source.blob(VipsImageRef.exifField)
        if spec.keep.exif, let exif { metadata.exif = EXIFFilter.forOutput(exif) }
        if spec.keep.copyright {
            let rights = ImageRights.read(exif: exif, xmp: source.blob(VipsImageRef.xmpField),
                                          iptc: source.blob(VipsImageRef.iptcField))
            if metadata.exif == nil { metadata.exif = rights.exifBlock() }
            metadata.xmp = rights.xmpPacket()
            metadata.iptc = rights.iptcBlock()
        }
        return metadata
    }
}
