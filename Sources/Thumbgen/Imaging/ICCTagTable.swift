import Foundation

/// The parts of an ICC profile (ICC.1:2010, the same layout in versions 2 and 4) that
/// `SRGBProfile` reads: the header's colour spaces and class, and the XYZ and tone-curve tags.
/// Every read is bounds-checked: a short or lying profile gives nil, never a trap.
struct ICCTagTable {
    /// The data colour space (`RGB `, `GRAY`, `CMYK`, ...).
    let colourSpace: String
    /// The profile connection space (`XYZ ` or `Lab `).
    let connectionSpace: String
    /// The device class (`mntr` for displays, `scnr`, `prtr`, `spac`, ...).
    let deviceClass: String
    /// The tag signatures present.
    var names: Set<String> { Set(entries.keys) }

    private let bytes: [UInt8]
    private let entries: [String: Range<Int>]

    /// Parses `bytes`; nil when the header or the tag table does not fit in them.
    init?(_ bytes: [UInt8]) {
        // The header's size field counts the whole profile: fewer bytes are a truncated one.
        guard bytes.count >= 132, Self.uint32(bytes, at: 0) <= bytes.count else { return nil }
        self.bytes = bytes
        deviceClass = Self.signature(bytes, at: 12)
        colourSpace = Self.signature(bytes, at: 16)
        connectionSpace = Self.signature(bytes, at: 20)
        let count = Int(Self.uint32(bytes, at: 128))
        guard count <= 1000, 132 + count * 12 <= bytes.count else { return nil }
        var entries: [String: Range<Int>] = [:]
        for index in 0..<count {
            let base = 132 + index * 12
            let offset = Int(Self.uint32(bytes, at: base + 4)), size = Int(Self.uint32(bytes, at: base + 8))
            guard offset <= bytes.count, size <= bytes.count - offset else { return nil }
            entries[Self.signature(bytes, at: base)] = offset..<(offset + size)
        }
        self.entries = entries
    }

    /// The three values of an `XYZ ` tag.
    func xyz(_ tag: String) -> [Double]? {
        guard let range = entries[tag], range.count >= 20, Self.signature(bytes, at: range.lowerBound) == "XYZ "
        else { return nil }
        return (0..<3).map { fixed(at: range.lowerBound + 8 + 4 * $0) }
    }

    /// A `curv` or `para` tag as a function from device values to linear light.
    func curve(_ tag: String) -> ToneCurve? {
        guard let range = entries[tag], range.count >= 12 else { return nil }
        let start = range.lowerBound
        switch Self.signature(bytes, at: start) {
        case "curv":
            let count = Int(Self.uint32(bytes, at: start + 8))
            guard count <= (range.count - 12) / 2 else { return nil }
            if count == 0 { return .gamma(1) }
            if count == 1 { return .gamma(Double(Self.uint16(bytes, at: start + 12)) / 256) }
            return .table((0..<count).map { Double(Self.uint16(bytes, at: start + 12 + 2 * $0)) / 65535 })
        case "para":
            let function = Int(Self.uint16(bytes, at: start + 8))
            let counts = [1, 3, 4, 5, 7]
            guard counts.indices.contains(function), range.count >= 12 + 4 * counts[function] else { return nil }
            var parameters = (0..<counts[function]).map { fixed(at: start + 12 + 4 * $0) }
            parameters += Array(repeating: 0, count: 7 - parameters.count)
            return .parametric(function: function, parameters)
        default:
            return nil
        }
    }

    /// An s15Fixed16Number.
    private func fixed(at offset: Int) -> Double {
        Double(Int32(bitPattern: Self.uint32(bytes, at: offset))) / 65536
    }

    private static func uint32(_ b: [UInt8], at i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func uint16(_ b: [UInt8], at i: Int) -> UInt16 {
        UInt16(b[i]) << 8 | UInt16(b[i + 1])
    }

    private static func signature(_ b: [UInt8], at i: Int) -> String {
        String(decoding: b[i..<(i + 4)], as: UTF8.self)
    }
}

/// An ICC tone curve: device value in 0–1 to linear light in 0–1.
enum ToneCurve {
    /// y = x^g.
    case gamma(Double)
    /// Samples spaced evenly over 0–1, interpolated linearly.
    case table([Double])
    /// The ICC parametric functions 0–4, with parameters g, a, b, c, d, e, f.
    case parametric(function: Int, [Double])

    /// The linear value for device value `x`.
    func linear(_ x: Double) -> Double {
        switch self {
        case .gamma(let g):
            return pow(x, g)
        case .table(let samples):
            let position = x * Double(samples.count - 1)
            let index = min(Int(position), samples.count - 2)
            let fraction = position - Double(index)
            return samples[index] * (1 - fraction) + samples[index + 1] * fraction
        case .parametric(let function, let p):
            let (g, a, b, c, d, e, f) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6])
            func power(_ x: Double) -> Double { let base = a * x + b; return base > 0 ? pow(base, g) : 0 }
            switch function {
            case 0: return pow(x, g)
            case 1: return a != 0 && x >= -b / a ? power(x) : 0
            case 2: return a != 0 && x >= -b / a ? power(x) + c : c
            case 3: return x >= d ? power(x) : c * x
            default: return x >= d ? power(x) + e : c * x + f
            }
        }
    }
}
