import Foundation

/// Writes compact ICC v4 display profiles from a colour space's published definition: its
/// primaries and white point (CIE xy) and the sRGB transfer function, which Display P3 shares.
///
/// 560 and 572 bytes (a matrix, one parametric curve, a name), against 3 KB for the usual
/// sRGB profile; thumbgen embeds them in outputs (`--colour p3`, `--keep icc`) and hands the
/// Display P3 one to lcms as the target of a conversion. The colorants are adapted to the
/// profile connection space's D50 by the Bradford transform, as ICC.1:2010 Annex E asks.
enum ICCProfileWriter {
    /// A colour space as its standard defines it.
    struct Definition {
        /// The profile's name (`desc`).
        var name: String
        /// The red, green and blue primaries and the white point, as CIE 1931 xy.
        var red: (Double, Double), green: (Double, Double), blue: (Double, Double)
        var white: (Double, Double)
    }

    /// IEC 61966-2-1 sRGB: the Rec. 709 primaries, D65.
    static let sRGBDefinition = Definition(name: "sRGB (thumbgen compact)", red: (0.64, 0.33), green: (0.30, 0.60),
                                           blue: (0.15, 0.06), white: (0.3127, 0.3290))
    /// Display P3: the DCI-P3 primaries with a D65 white (SMPTE EG 432-1) and sRGB's curve.
    static let displayP3Definition = Definition(name: "Display P3 (thumbgen compact)", red: (0.680, 0.320),
                                                green: (0.265, 0.690), blue: (0.150, 0.060),
                                                white: (0.3127, 0.3290))

    /// thumbgen's compact sRGB profile.
    static let sRGB = profile(sRGBDefinition)
    /// thumbgen's compact Display P3 profile.
    static let displayP3 = profile(displayP3Definition)

    /// The profile connection space's illuminant, D50, as ICC stores it.
    static let d50 = [0.9642, 1.0, 0.8249]

    /// The profile of `definition`: header, tag table, then `desc`, `cprt`, `wtpt`, `chad`,
    /// the three colorants and one `para` curve that all three TRC tags point to.
    static func profile(_ definition: Definition) -> [UInt8] {
        let adaptation = bradford(from: xyz(definition.white), to: d50)
        let colorants = multiply(adaptation, rgbToXYZ(definition))
        var tags: [(String, [UInt8])] = [
            ("desc", mluc(definition.name)),
            ("cprt", mluc("No copyright, use freely")),
            ("wtpt", xyzTag(d50)),
            ("chad", sf32(adaptation.flatMap { $0 })),
            ("rXYZ", xyzTag(colorants.map { $0[0] })),
            ("gXYZ", xyzTag(colorants.map { $0[1] })),
            ("bXYZ", xyzTag(colorants.map { $0[2] })),
        ]
        // IEC 61966-2-1's curve as ICC parametric function 3: (ax+b)^g above d, cx below.
        tags.append(("rTRC", para(function: 3, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])))
        let tableEnd = 128 + 4 + 12 * (tags.count + 2)
        var data: [UInt8] = []
        var table: [(String, Int, Int)] = []
        for (signature, body) in tags {
            table.append((signature, tableEnd + data.count, body.count))
            data += body
            while data.count % 4 != 0 { data.append(0) }
        }
        // Green and blue share red's curve: one element, three tags (ICC allows it).
        let curve = table[table.count - 1]
        table += [("gTRC", curve.1, curve.2), ("bTRC", curve.1, curve.2)]
        var bytes = header(size: tableEnd + data.count)
        bytes += be32(UInt32(table.count))
        for (signature, offset, size) in table {
            bytes += Array(signature.utf8) + be32(UInt32(offset)) + be32(UInt32(size))
        }
        return bytes + data
    }

    /// The 128-byte header of a v4.3 RGB display profile; the date is fixed so that the bytes,
    /// and every output that embeds them, never change.
    private static func header(size: Int) -> [UInt8] {
        var h = be32(UInt32(size)) + [0, 0, 0, 0] + [0x04, 0x30, 0, 0]
        h += Array("mntrRGB XYZ ".utf8)
        h += [2026, 1, 1, 0, 0, 0].flatMap { be16(UInt16($0)) }
        // Platform, flags, maker, model, attributes, then the rendering intent (perceptual).
        h += Array("acsp".utf8) + [UInt8](repeating: 0, count: 4 * 4 + 8) + be32(0)
        h += d50.flatMap { be32(fixed($0)) }
        h += [UInt8](repeating: 0, count: 4 + 16 + 28)
        return h
    }

    private static func mluc(_ text: String) -> [UInt8] {
        let utf16 = Array(text.utf16).flatMap { be16($0) }
        return Array("mluc".utf8) + be32(0) + be32(1) + be32(12) + Array("enUS".utf8)
            + be32(UInt32(utf16.count)) + be32(28) + utf16
    }

    private static func xyzTag(_ v: [Double]) -> [UInt8] { Array("XYZ ".utf8) + be32(0) + v.flatMap { be32(fixed($0)) } }

    private static func sf32(_ v: [Double]) -> [UInt8] { Array("sf32".utf8) + be32(0) + v.flatMap { be32(fixed($0)) } }

    private static func para(function: Int, _ parameters: [Double]) -> [UInt8] {
        Array("para".utf8) + be32(0) + be16(UInt16(function)) + be16(0) + parameters.flatMap { be32(fixed($0)) }
    }

    /// An s15Fixed16Number.
    private static func fixed(_ value: Double) -> UInt32 { UInt32(bitPattern: Int32((value * 65536).rounded())) }
    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    private static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }

    // MARK: - Colour arithmetic

    /// XYZ of a chromaticity at luminance 1.
    static func xyz(_ xy: (Double, Double)) -> [Double] { [xy.0 / xy.1, 1, (1 - xy.0 - xy.1) / xy.1] }

    /// The matrix taking linear RGB to XYZ under the definition's own white.
    static func rgbToXYZ(_ d: Definition) -> [[Double]] {
        let primaries = [xyz(d.red), xyz(d.green), xyz(d.blue)]
        let p = (0..<3).map { row in primaries.map { $0[row] } }
        let s = multiply(invert(p), xyz(d.white).map { [$0] }).map { $0[0] }
        return p.map { row in (0..<3).map { row[$0] * s[$0] } }
    }

    /// The Bradford chromatic adaptation from white `source` to white `target` (both XYZ).
    static func bradford(from source: [Double], to target: [Double]) -> [[Double]] {
        let m = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        let s = multiply(m, source.map { [$0] }).map { $0[0] }
        let t = multiply(m, target.map { [$0] }).map { $0[0] }
        let scale = (0..<3).map { row in (0..<3).map { row == $0 ? t[row] / s[row] : 0 } }
        return multiply(invert(m), multiply(scale, m))
    }

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        a.map { row in (0..<b[0].count).map { column in (0..<b.count).reduce(0) { $0 + row[$1] * b[$1][column] } } }
    }

    static func invert(_ m: [[Double]]) -> [[Double]] {
        let (a, b, c) = (m[0][0], m[0][1], m[0][2])
        let (d, e, f) = (m[1][0], m[1][1], m[1][2])
        let (g, h, i) = (m[2][0], m[2][1], m[2][2])
        let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
                [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
                [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]
    }
}
