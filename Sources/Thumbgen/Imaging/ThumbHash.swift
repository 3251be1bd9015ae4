import Foundation

/// ThumbHash (Evan Wallace, 2023): a placeholder of about 25 bytes that holds an image's
/// colours, a few of its shapes, its alpha and its aspect ratio, from which a page draws a
/// blurred preview while the image loads. Written from the published algorithm: the image's
/// luminance (L), two chroma channels (P, Q) and alpha (A) each as a few DCT coefficients,
/// quantised to 4 bits after a header of the DC terms and scales.
enum ThumbHash {
    /// The hash of `width` × `height` pixels of 8-bit RGBA (`rgba`, row by row, 4 bytes a
    /// pixel, alpha not premultiplied); nil unless both sides are 1–100 and `rgba` holds them.
    static func encode(width w: Int, height h: Int, rgba: [UInt8]) -> [UInt8]? {
        guard (1...100).contains(w), (1...100).contains(h), rgba.count == w * h * 4 else { return nil }
        let count = w * h
        // The average colour, by alpha, which transparent pixels are filled with.
        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            average.r += alpha / 255 * Double(rgba[4 * i])
            average.g += alpha / 255 * Double(rgba[4 * i + 1])
            average.b += alpha / 255 * Double(rgba[4 * i + 2])
            average.a += alpha
        }
        if average.a > 0 {
            average.r /= average.a
            average.g /= average.a
            average.b /= average.a
        }
        let hasAlpha = average.a < Double(count)
        let limit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, Int(rounded(limit * Double(w) / longest)))
        let ly = max(1, Int(rounded(limit * Double(h) / longest)))
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for i in 0..<count {
            let alpha = Double(rgba[4 * i + 3]) / 255
            let r = average.r * (1 - alpha) + alpha / 255 * Double(rgba[4 * i])
            let g = average.g * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 1])
            let b = average.b * (1 - alpha) + alpha / 255 * Double(rgba[4 * i + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        let lc = channel(l, w, h, max(3, lx), max(3, ly))
        let pc = channel(p, w, h, 3, 3), qc = channel(q, w, h, 3, 3)
        let ac = hasAlpha ? channel(a, w, h, 5, 5) : (dc: 0, ac: [], scale: 0)
        let landscape = w > h
        let header24 = Int(rounded(63 * lc.dc)) | Int(rounded(31.5 + 31.5 * pc.dc)) << 6
            | Int(rounded(31.5 + 31.5 * qc.dc)) << 12 | Int(rounded(31 * lc.scale)) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (landscape ? ly : lx) | Int(rounded(63 * pc.scale)) << 3 | Int(rounded(63 * qc.scale)) << 9
            | (landscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16),
                             UInt8(header16 & 255), UInt8(header16 >> 8)]
        if hasAlpha { hash.append(UInt8(Int(rounded(15 * ac.dc)) | Int(rounded(15 * ac.scale)) << 4)) }
        let start = hash.count
        var index = 0
        for coefficients in hasAlpha ? [lc.ac, pc.ac, qc.ac, ac.ac] : [lc.ac, pc.ac, qc.ac] {
            for f in coefficients {
                let at = start + index >> 1
                if at == hash.count { hash.append(0) }
                hash[at] |= UInt8(Int(rounded(15 * f)) << ((index & 1) << 2))
                index += 1
            }
        }
        return hash
    }

    /// `channel`'s DCT terms up to `nx` × `ny` (a triangle of them): the DC term, the others
    /// scaled into 0…1 by the largest magnitude among them, and that scale.
    private static func channel(_ channel: [Double], _ w: Int, _ h: Int, _ nx: Int, _ ny: Int)
        -> (dc: Double, ac: [Double], scale: Double)
    {
        var dc = 0.0, scale = 0.0
        var ac: [Double] = []
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }

    /// JavaScript's `Math.round`, which the published encoder uses: halves go up.
    private static func rounded(_ value: Double) -> Double {
        (value + 0.5).rounded(.down)
    }
}
