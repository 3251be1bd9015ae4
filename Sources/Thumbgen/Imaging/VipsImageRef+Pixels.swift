import CVips

/// Pixels out of libvips into Swift, for the analyses done on a tiny image (placeholders).
extension VipsImageRef {
    /// The image as 8-bit sRGB with alpha, row by row, 4 bytes a pixel (alpha not
    /// premultiplied; opaque where the image has none). Evaluates the image into memory: call it
    /// on a small one.
    func rgba8() throws(ImagingError) -> (width: Int, height: Int, bytes: [UInt8]) {
        var image = self
        // Three or four bands of 8 bits are taken as sRGB whatever they are labelled (an image
        // made from memory is "multiband"); anything else is converted.
        let space = image.colourSpace
        if [.grey, .grey16, .rgb16, .cmyk].contains(space) || image.bands < 3 {
            image = try image.colourspace(.sRGB)
        }
        if image.bandFormat != .uint8 { image = try image.cast(.uint8) }
        if image.bands == 3 { image = try image.withOpaqueAlpha() }
        guard image.bands == 4 else {
            throw .libvips(operation: "colourspace", message: "\(image.bands) bands, not RGBA")
        }
        let memory = try image.copiedToMemory()
        guard let base = tg_memory_pixels(memory.pointer) else {
            throw .libvips(operation: "copy_memory", message: "pixels not in memory")
        }
        let width = memory.width, height = memory.height
        let line = tg_line_size(memory.pointer)
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                (out.baseAddress! + y * width * 4).update(from: base + y * line, count: width * 4)
            }
        }
        return (width, height, bytes)
    }
}
