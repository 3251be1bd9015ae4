import CResample
import CVips

extension VipsImageRef {
    /// The rows of libvips' line cache after a vertical reduce of pixels read in one pass
    /// (reducev.cpp: `vips_sequential` with `tile_height` 10): the reduce is asked for strips
    /// that tall, from the top, whatever reads its output.
    static let sequentialReduceStrip = 10

    /// Whether `resampledInMemory` takes the area and target once this image's pixels are
    /// in memory, with `kernel`: what decides whether holding a lone decode in memory pays
    /// (`SourceRender.holdsAlone`), and never holds one that libvips would then resample.
    func resamplesInMemory(x: Int, y: Int, width: Int, height: Int, toWidth targetWidth: Int,
                           height targetHeight: Int, kernel: Kernel) -> Bool {
        VipsResampleCheck.agrees && kernel.resampleCode != nil
            && resamplesInC(x: x, y: y, width: width, height: height, toWidth: targetWidth, height: targetHeight)
    }

    /// The C resampler's own conditions on the pixels and sizes: 8-bit without alpha, an area
    /// inside the image, no axis growing, one shrinking.
    private func resamplesInC(x: Int, y: Int, width: Int, height: Int, toWidth targetWidth: Int,
                              height targetHeight: Int) -> Bool {
        !hasAlpha && tg_is_uchar(pointer) != 0
            && x >= 0 && y >= 0 && width >= 1 && height >= 1
            && x + width <= self.width && y + height <= self.height
            && targetWidth >= 1 && targetHeight >= 1 && targetWidth <= width && targetHeight <= height
            && (targetWidth < width || targetHeight < height)
    }

    /// The area `x`, `y`, `width` × `height` of this image downsized to `targetWidth` ×
    /// `targetHeight` by the C resampler (`CResample`), with the bytes libvips 8.14 makes:
    /// `vips_shrink` by `preShrink` then `vips_reduce` when it is given, else `vips_resize`;
    /// `vectorCode` as libvips' vector code would be set; `strip` the height of the strips
    /// libvips' result would be read in (`tg_jpeg_write`'s), or 0 for rows one at a time
    /// (`tg_resample.h`). A new image in memory with this image's metadata, as libvips' result
    /// carries it.
    ///
    /// Nil when the C resampler does not reproduce the case: pixels not held in memory, not
    /// 8-bit, with alpha (libvips resamples those premultiplied, in floats), the `nearest`
    /// kernel, or an axis that grows; and always when the linked libvips resamples otherwise
    /// (`VipsResampleCheck`, which alone passes `checked: false`). The caller then builds
    /// libvips' operations.
    func resampledInMemory(x: Int, y: Int, width: Int, height: Int,
                           toWidth targetWidth: Int, height targetHeight: Int, kernel: Kernel,
                           preShrink: BoxPreShrink?, vectorCode: Bool, strip: Int = 0,
                           checked: Bool = true) -> VipsImageRef? {
        guard !checked || VipsResampleCheck.agrees, let code = kernel.resampleCode,
              resamplesInC(x: x, y: y, width: width, height: height, toWidth: targetWidth, height: targetHeight),
              let base = tg_memory_pixels(pointer),
              // Linked to this image in libvips' graph, which other rows share: under the lock.
              let out = VipsGraphLock.withLock({ tg_memory_image_like(pointer, Int32(targetWidth), Int32(targetHeight)) })
        else { return nil }
        let result = VipsImageRef(owning: out)
        guard let outPixels = tg_memory_pixels(out) else { return nil }
        let lineSize = tg_line_size(pointer)
        var input = tg_pixels(pixels: base + y * lineSize + x * bands, stride: lineSize,
                              width: Int32(width), height: Int32(height), bands: Int32(bands))
        let target = UnsafeMutablePointer(mutating: outPixels)
        let status: Int32
        if let preShrink {
            status = tg_resample_shrink_reduce(&input, Int32(preShrink.horizontal), Int32(preShrink.vertical),
                                               code, vectorCode ? 1 : 0, Int32(strip), target, tg_line_size(out),
                                               Int32(targetWidth), Int32(targetHeight))
        } else {
            status = tg_resample_resize(&input, Double(targetWidth) / Double(width),
                                        Double(targetHeight) / Double(height), code, vectorCode ? 1 : 0, Int32(strip),
                                        target, tg_line_size(out), Int32(targetWidth), Int32(targetHeight))
        }
        return status == 0 ? result : nil
    }
}

private extension Kernel {
    /// The kernel's code for the C resampler; nil for `nearest`, which it does not reproduce.
    var resampleCode: Int32? {
        switch self {
        case .nearest: return nil
        case .linear: return Int32(TG_KERNEL_LINEAR)
        case .cubic: return Int32(TG_KERNEL_CUBIC)
        case .mitchell: return Int32(TG_KERNEL_MITCHELL)
        case .lanczos2: return Int32(TG_KERNEL_LANCZOS2)
        case .lanczos3: return Int32(TG_KERNEL_LANCZOS3)
        }
    }
}
