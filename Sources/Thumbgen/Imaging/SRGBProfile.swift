import Foundation
import Synchronization

/// Tells an embedded ICC profile that is sRGB by its content, so that its pixels can skip the
/// profile transform: they are sRGB already, and building an lcms transform costs more than
/// resizing a small image (the reverse tone curves alone took 8–14% of a small-image run).
///
/// Judged by what the profile does, never by its name: an RGB matrix/TRC display profile whose
/// colorants are sRGB's (D50-adapted, as ICC stores them) within `colorantTolerance`, whose
/// white point is D50 or D65 (v2 profiles often store D65), and whose three tone curves
/// re-encode every 8-bit value through sRGB's own curve to within `curveTolerance` of itself.
/// A profile with lookup tables (`A2Bn`, `B2An`, `D2Bn`), which lcms would prefer to the
/// matrix, never matches. The variants in the wild (HP's `sRGB IEC61966-2.1`, the compact
/// `sRGB built-in` of GIMP and libvips, Elle Stone's) differ from the reference by at most
/// 0.0003 in a colorant and 0.03 of a code value in a curve.
enum SRGBProfile {
    /// How far an XYZ component of a colorant may be from sRGB's.
    static let colorantTolerance = 0.001
    /// How far the white point may be from D50 or D65.
    static let whiteTolerance = 0.002
    /// How far, in 8-bit code values, a value taken through a tone curve and re-encoded as
    /// sRGB may land from where it started.
    static let curveTolerance = 0.5

    /// sRGB's red, green and blue colorants adapted to D50 (Bradford), as in the ICC's own
    /// sRGB profile.
    private static let colorants: [(tag: String, xyz: [Double])] = [
        ("rXYZ", [0.4360747, 0.2225045, 0.0139322]),
        ("gXYZ", [0.3850649, 0.7168786, 0.0971045]),
        ("bXYZ", [0.1430804, 0.0606169, 0.7141733]),
    ]
    private static let whites: [[Double]] = [[0.9642, 1.0, 0.8249], [0.9505, 1.0, 1.0890]]
    private static let lookupTags: Set<String> = ["A2B0", "A2B1", "A2B2", "B2A0", "B2A1", "B2A2",
                                                 "D2B0", "D2B1", "D2B2", "D2B3"]

    /// `matches`, remembered per distinct profile: a photo set carries a handful of
    /// profiles, and every output of a source would otherwise judge the same bytes again
    /// (768 curve evaluations each). At most `rememberedLimit` are kept.
    static func isSRGB(_ profile: [UInt8]) -> Bool {
        if let known = remembered.withLock({ $0[profile] }) { return known }
        let verdict = matches(profile)
        remembered.withLock { memo in
            if memo.count >= rememberedLimit { memo.removeAll() }
            memo[profile] = verdict
        }
        return verdict
    }

    private static let rememberedLimit = 64
    private static let remembered = Mutex<[[UInt8]: Bool]>([:])

    /// Whether `profile` (an ICC profile's bytes) transforms RGB pixels as sRGB does.
    static func matches(_ profile: [UInt8]) -> Bool {
        guard let tags = ICCTagTable(profile), tags.colourSpace == "RGB ", tags.connectionSpace == "XYZ ",
              tags.deviceClass == "mntr", tags.names.isDisjoint(with: lookupTags) else { return false }
        for (tag, expected) in colorants {
            guard let xyz = tags.xyz(tag), zip(xyz, expected).allSatisfy({ abs($0 - $1) <= colorantTolerance })
            else { return false }
        }
        guard let white = tags.xyz("wtpt"),
              whites.contains(where: { zip(white, $0).allSatisfy { abs($0 - $1) <= whiteTolerance } })
        else { return false }
        return ["rTRC", "gTRC", "bTRC"].allSatisfy { tag in
            guard let curve = tags.curve(tag) else { return false }
            return (0...255).allSatisfy { code in
                let x = Double(code) / 255
                return abs(encode(curve.linear(x)) * 255 - Double(code)) <= curveTolerance
            }
        }
    }

    /// sRGB's encoding of a linear value in 0–1.
    static func encode(_ linear: Double) -> Double {
        let l = min(max(linear, 0), 1)
        return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
    }
}
