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
    static func make(from image: VipsImageRef, frameHeight: Int) throws(ImagingError) -> Placeholder {
        var frame = image
        if frameHeight < image.height {
            frame = try image.extractArea(x: 0, y: 0, width: image.width, height: frameHeight)
        }
        let small = try shrunk(frame, toFit: analysisSide)
        let pixels = try small.rgba8()
        guard let hash = ThumbHash.encode(width: pixels.width, height: pixels.height, rgba: pixels.bytes) else {
            throw .libvips(operation: "thumbhash", message: "\(pixels.width)×\(pixels.height) pixels")
        }
        return Placeholder(dominant: dominant(pixels.bytes), thumbHash: hash, lqip: try lqip(small))
    }

    /// `image` downsized so that its longer side is at most `side` (never enlarged).
    private static func shrunk(_ image: VipsImageRef, toFit side: Int) throws(ImagingError) -> VipsImageRef {
        let longer = max(image.width, image.height)
        guard longer > side else { return image }
        let width = max(1, Int((Double(image.width * side) / Double(longer)).rounded()))
        let height = max(1, Int((Double(image.height * side) / Double(longer)).rounded()))
        return try image.resized(hscale: Double(width) / Double(image.width),
                                 vscale: Double(height) / Double(image.height), kernel: .linear)
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
        func hex(_ total: Int) -> String {
            let value = (total + n / 2) / n
            return (value < 16 ? "0" : "") + String(value, radix: 16)
        }
        return "#" + hex(sum.0) + hex(sum.1) + hex(sum.2)
    }

    /// A tiny blurred WebP of `small`, whose data URI fits in `maximumDataURI` characters.
    private static func lqip(_ small: VipsImageRef) throws(ImagingError) -> [UInt8] {
        var last: [UInt8] = []
        for side in lqipSides {
            let tiny = try shrunk(small, toFit: side).gaussBlurred(sigma: 0.6).withoutMetadata()
            let data = try tiny.saved(with: .webp(quality: lqipQuality, effort: 4, lossless: false, nearLossless: false),
                                      operation: "webpsave")
            last = [UInt8](WebPMetadata.stripped(data))
            if "data:image/webp;base64,".utf8.count + (last.count + 2) / 3 * 4 <= maximumDataURI { return last }
        }
        return last
    }
}
