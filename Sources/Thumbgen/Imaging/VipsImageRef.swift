import CVips

/// Owns one reference to a libvips image and releases it when the Swift object goes away.
///
/// libvips images are immutable once built and safe to read from several threads, which is
/// why this type may cross threads. Every operation returns a new owner. Opening files, reading
/// properties and every operation are Swift-typed (`VipsImageRef+*.swift`), so that the rest of
/// the library never sees libvips' C types.
final class VipsImageRef: @unchecked Sendable {
    /// The image. Internal because Swift has no access level for a group of files: in the
    /// library only the `Vips*.swift` wrapper files read it (`LayeringTests` fails on any other
    /// use under Sources/Thumbgen); outside it, tests set metadata on fixtures through it
    /// (`LosslessMetadataTests`).
    let pointer: UnsafeMutablePointer<VipsImage>

    /// Takes ownership of a reference the caller already holds.
    init(owning pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        // Dropping the last reference frees the operations behind the image (see VipsGraphLock).
        VipsGraphLock.withLock { tg_unref(pointer) }
    }

    /// Width in pixels.
    var width: Int { Int(vips_image_get_width(pointer)) }
    /// Height in pixels (of all pages, for a multi-page image).
    var height: Int { Int(vips_image_get_height(pointer)) }
    /// Number of bands (channels), alpha included.
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    /// Whether the last band is alpha.
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    /// EXIF-style orientation 1–8 (1 when absent).
    var orientation: Int { Int(vips_image_get_orientation(pointer)) }
    /// Pages (frames) in the file this image was loaded from; 1 for a single image.
    var pageCount: Int { Int(vips_image_get_n_pages(pointer)) }
    /// Height of one page: the image is its pages stacked top to bottom.
    var pageHeight: Int { Int(vips_image_get_page_height(pointer)) }
    /// Whether the pixels come from a loader opened for one pass from top to bottom (libvips
    /// then caches the output of a vertical reduce in strips: `VipsImageRef+Resample.swift`).
    var isSequential: Bool { vips_image_get_typeof(pointer, "vips-sequential") != 0 }
    /// Whether an ICC profile is attached.
    var hasICCProfile: Bool { vips_image_get_typeof(pointer, "icc-profile-data") != 0 }
    /// The attached ICC profile's bytes, if any.
    var iccProfile: [UInt8]? { blob(VipsImageRef.iccField) }

    /// The names of the metadata blobs thumbgen reads: the ICC profile, EXIF (a TIFF structure
    /// after `Exif\0\0`), the XMP packet and IPTC (a JPEG's APP13, or a TIFF's IIM).
    static let iccField = "icc-profile-data", exifField = "exif-data", xmpField = "xmp-data",
               iptcField = "iptc-data"

    /// The bytes of the metadata blob `name`, if the image has one.
    func blob(_ name: String) -> [UInt8]? {
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_typeof(pointer, name) != 0, vips_image_get_blob(pointer, name, &data, &length) == 0,
              let data else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
    /// The libvips loader that opened this image (`jpegload`, `pngload`, ...), if any.
    var loader: String? {
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, "vips-loader", &value) == 0, let value else {
            vips_error_clear()
            return nil
        }
        return String(cString: value)
    }

    /// The XMP packet attached (`xmp-data`), as text, if any.
    var xmpPacket: String? {
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_typeof(pointer, "xmp-data") != 0,
              vips_image_get_blob(pointer, "xmp-data", &data, &length) == 0, let data else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// A metadata field libvips keeps as text (an EXIF tag: `exif-ifd2-SubjectArea`), if any.
    func exifText(_ name: String) -> String? {
        guard vips_image_get_typeof(pointer, name) != 0 else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, name, &value) == 0, let value else {
            vips_error_clear()
            return nil
        }
        return String(cString: value)
    }

    /// Where this image's window starts in the image an extract or a smart crop cut it from
    /// (libvips keeps it as a negative offset).
    var windowOrigin: (x: Int, y: Int) {
        (-Int(vips_image_get_xoffset(pointer)), -Int(vips_image_get_yoffset(pointer)))
    }

    /// Asks libvips to stop evaluating this image (and so any save in progress) at once.
    func kill() {
        vips_image_set_kill(pointer, 1)
    }
}
