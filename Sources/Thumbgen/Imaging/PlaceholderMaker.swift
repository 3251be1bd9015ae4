/// Makes a `Placeholder` from an output's pixels, before they are encoded: one small copy of
/// the image (at most 100 px a side, what ThumbHash takes) gives all three kinds.
enum PlaceholderMaker {
    /// The longest side of the image the placeholder is computed from.
    static let analysisSide = 100
    /// The longest sides the LQIP is tried at, largest first, until its data URI fits.
    static let lqipSides = [16, 12, 8, 4]
    /// The LQIP's WebP quality: low, since the browser stretches it and the blur hides detail.
    static let lqipQuality = 40
    /// The longest a data URI may be (the issue's and plaiceholder's budget for inline markup).
    static let maximumDataURI = 400
    /// The most pixels an output may have for its placeholder to be made: making one holds the
    /// output's pixels in memory (4 MP is 16 MB of RGBA), where the encode alone would stream
    /// them.
    static let maximumPixels = 1 << 22

    /// The placeholder of `image` (its first frame when `frameHeight` is less than its height).
    /// One libvips step makes the small copy (the C resampler's, without building operations,
    /// when the pixels are in memory); the rest is arithmetic on its bytes and a WebP encode of
    /// a few hundred pixels: about a millisecond a source (docs/performance.md).
    static func make(from image: VipsImageRef, frameHeight: Int) throws(ImagingError) -> Placeholder {
        let (width, height) = fitted(image.width, frameHeight, within: analysisSide)
        let small: VipsImageRef
        if let resampled = image.resampledInMemory(x: 0, y: 0, width: image.width, height: frameHeight,
                                                   toWidth: width, height: height, kernel: .linear,
                                                   preShrink: nil, vectorCode: false) {
            small = resampled
        } else {
            var frame = image
            if frameHeight < image.height {
                frame = try image.extractArea(x: 0, y: 0, width: image.width, height: frameHeight)
            }
            small = width == frame.width && height == frame.height ? frame
                : try frame.resized(hscale: Double(width) / Double(frame.width),
                                    vscale: Double(height) / Double(frame.height), kernel: .linear)
        }
        let pixels = try small.rgba8()
        guard let hash = ThumbHash.encode(width: pixels.width, height: pixels.height, rgba: pixels.bytes) else {
            throw .libvips(operation: "thumbhash", message: "\(pixels.width)×\(pixels.height) pixels")
        }
        return Placeholder(dominant: dominant(pixels.bytes), thumbHash: hash,
                           lqip: try lqip(pixels, like: small))
    }

    /// `width` × `height` scaled so that the longer side is at most `side` (never enlarged).
    static func fitted(_ width: Int, _ height: Int, within side: Int) -> (Int, Int) {
        let longer = max(width, height)
        guard longer > side else { return (width, height) }
        return (max(1, Int((Double(width * side) / Double(longer)).rounded())),
                max(1, Int((Double(height * side) / Double(longer)).rounded())))
    }

    /// The colour most opaque pixels are near: the pixels fall into 4,096 boxes (16 steps a
    /// channel, as sharp's `dominant`), and the fullest box's mean is the answer (ties go to
    /// the lower box). With no opaque pixel, the mean of all.
    static func dominant(_ rgba: [UInt8]) -> String {
        var counts = [Int](repeating: 0, count: 4096)
        var sums = [(Int, Int, Int)](repeating: (0, 0, 0), count: 4096)
        var all = (0, 0, 0)
        let count = rgba.count / 4
        for i in 0..<count {
            let r = Int(rgba[4 * i]), g = Int(rgba[4 * i + 1]), b = Int(rgba[4 * i + 2])
            all.0 += r; all.1 += g; all.2 += b
            guard rgba[4 * i + 3] >= 128 else { continue }
            let box = (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
            counts[box] += 1
            sums[box].0 += r; sums[box].1 += g; sums[box].2 += b
        }
        var best = 0
        for box in 1..<4096 where counts[box] > counts[best] { best = box }
        let (n, sum) = counts[best] > 0 ? (counts[best], sums[best]) : (max(count, 1), all)
        let mean = [sum.0, sum.1, sum.2].map { UInt8(($0 + n / 2) / n) }
        return "#" + ContentDigest.hex(mean)
    }

    /// A tiny blurred WebP of `pixels` (8-bit RGBA), whose data URI fits in `maximumDataURI`
    /// characters: box-averaged down to `lqipSides`, blurred by a 1-2-1 kernel each way (the
    /// browser then stretches it smoothly), encoded at `lqipQuality`.
    private static func lqip(_ pixels: (width: Int, height: Int, bytes: [UInt8]),
                             like small: VipsImageRef) throws(ImagingError) -> [UInt8] {
        var last: [UInt8] = []
        for side in lqipSides {
            let (width, height) = fitted(pixels.width, pixels.height, within: side)
            let tiny = blurred(boxAveraged(pixels, to: width, height), width, height)
            let image = try VipsImageRef.rendered(width: width, height: height, bands: 4, like: small,
                                                  failure: .libvips(operation: "lqip", message: "no pixels")) { buffer in
                _ = buffer.initialize(from: tiny)
                return true
            }
            let data = try image.withoutMetadata().saved(
                with: .webp(quality: lqipQuality, effort: 4, lossless: false, nearLossless: false), operation: "webpsave")
            last = [UInt8](WebPMetadata.stripped(data))
            if "data:image/webp;base64,".utf8.count + (last.count + 2) / 3 * 4 <= maximumDataURI { return last }
        }
        return last
    }

    /// `pixels` (RGBA) down to `width` × `height`, each pixel the mean of the source pixels whose
    /// centres fall in its box (colour weighted by alpha, so clear pixels lend it none).
    static func boxAveraged(_ pixels: (width: Int, height: Int, bytes: [UInt8]), to width: Int, _ height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for ty in 0..<height {
            let y0 = ty * pixels.height / height, y1 = max(y0 + 1, (ty + 1) * pixels.height / height)
            for tx in 0..<width {
                let x0 = tx * pixels.width / width, x1 = max(x0 + 1, (tx + 1) * pixels.width / width)
                var r = 0, g = 0, b = 0, a = 0, n = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let i = (y * pixels.width + x) * 4
                        let alpha = Int(pixels.bytes[i + 3])
                        r += Int(pixels.bytes[i]) * alpha; g += Int(pixels.bytes[i + 1]) * alpha
                        b += Int(pixels.bytes[i + 2]) * alpha; a += alpha; n += 1
                    }
                }
                let o = (ty * width + tx) * 4
                if a > 0 {
                    out[o] = UInt8((r + a / 2) / a); out[o + 1] = UInt8((g + a / 2) / a); out[o + 2] = UInt8((b + a / 2) / a)
                }
                out[o + 3] = UInt8((a + n / 2) / n)
            }
        }
        return out
    }

    /// `pixels` (RGBA, `width` × `height`) blurred by 1-2-1 across, then down (edges repeated).
    static func blurred(_ pixels: [UInt8], _ width: Int, _ height: Int) -> [UInt8] {
        func pass(_ input: [UInt8], step: (Int, Int) -> (Int, Int)) -> [UInt8] {
            var output = input
            for y in 0..<height {
                for x in 0..<width {
                    let (before, after) = step(x, y)
                    let i = (y * width + x) * 4
                    for c in 0..<4 {
                        output[i + c] = UInt8((Int(input[before + c]) + 2 * Int(input[i + c]) + Int(input[after + c]) + 2) / 4)
                    }
                }
            }
            return output
        }
        let across = pass(pixels) { x, y in
            ((y * width + max(x - 1, 0)) * 4, (y * width + min(x + 1, width - 1)) * 4)
        }
        return pass(across) { x, y in
            ((max(y - 1, 0) * width + x) * 4, (min(y + 1, height - 1) * width + x) * 4)
        }
    }
}
