import Foundation
import Testing
@testable import Thumbgen

/// `SRGBProfile`: which embedded profiles let pixels skip the profile transform, judged by
/// content; and, end to end, that skipping it is exactly "no profile" while any other profile
/// is still honoured.
@Suite("sRGB profiles by content")
struct SRGBProfileTests {
    /// sRGB's D50 colorants, as `SyntheticProfile` writes them unless told otherwise.
    static let sRGBColorants: [[Double]] = [[0.4361, 0.2225, 0.0139], [0.3851, 0.7169, 0.0971],
                                            [0.1431, 0.0606, 0.7141]]
    /// sRGB's curve as ICC parametric function 3.
    static let sRGBCurve = SyntheticProfile.Curve.parametric([2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])

    @Test("libvips' own sRGB profile is sRGB; its Display P3 and CMYK profiles are not")
    func libvipsProfiles() throws {
        #expect(SRGBProfile.matches([UInt8](try FixtureBytes.libvipsProfile("srgb"))))
        #expect(!SRGBProfile.matches([UInt8](try FixtureBytes.libvipsProfile("p3"))))
        #expect(!SRGBProfile.matches([UInt8](try FixtureBytes.cmykProfile())))
    }

    @Test("Matrix/TRC profiles: sRGB's colorants and curve match, in v2 (D65 white, sampled curve) and v4 form")
    func variants() {
        let table = SyntheticProfile.Curve.table((0..<1024).map { code in
            let x = Double(code) / 1023
            return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
        })
        #expect(SRGBProfile.matches(SyntheticProfile(curve: Self.sRGBCurve).bytes))
        #expect(SRGBProfile.matches(SyntheticProfile(white: [0.9505, 1, 1.089], curve: table).bytes))
    }

    @Test("Near misses do not match: gamma 2.2, other primaries, another white, a LUT, another class")
    func nearMisses() {
        #expect(!SRGBProfile.matches(SyntheticProfile(curve: .gamma(2.2)).bytes))
        #expect(!SRGBProfile.matches(SyntheticProfile(curve: .gamma(1)).bytes))
        // Adobe RGB (1998)'s green.
        var adobe = Self.sRGBColorants
        adobe[1] = [0.2053, 0.6257, 0.0609]
        #expect(!SRGBProfile.matches(SyntheticProfile(colorants: adobe, curve: Self.sRGBCurve).bytes))
        var nudged = Self.sRGBColorants
        nudged[0][0] += 0.003
        #expect(!SRGBProfile.matches(SyntheticProfile(colorants: nudged, curve: Self.sRGBCurve).bytes))
        #expect(!SRGBProfile.matches(SyntheticProfile(white: [0.9, 1, 0.9], curve: Self.sRGBCurve).bytes))
        #expect(!SRGBProfile.matches(SyntheticProfile(curve: Self.sRGBCurve, extraTag: "A2B0").bytes))
        #expect(!SRGBProfile.matches(SyntheticProfile(deviceClass: "prtr", curve: Self.sRGBCurve).bytes))
    }

    @Test("Every truncation of a profile, and a tag table that points outside it, is refused without a trap")
    func damagedProfiles() throws {
        let whole = [UInt8](try FixtureBytes.libvipsProfile("srgb"))
        let acceptedLengths = (0..<whole.count).filter { SRGBProfile.matches(Array(whole.prefix($0))) }
        #expect(acceptedLengths.isEmpty, "matched when cut to \(acceptedLengths.prefix(5)) of \(whole.count) bytes")
        var lying = SyntheticProfile(curve: Self.sRGBCurve).bytes
        lying[132 + 4..<132 + 8] = [0x7f, 0xff, 0xff, 0xff]   // the first tag's offset
        #expect(!SRGBProfile.matches(lying))
    }

    @Test("End to end: a JPEG under an sRGB profile comes out exactly as without one; under P3 it does not",
          arguments: ["workers", "none"])
    func skipIsExact(isolation: String) async throws {
        let space = try Workspace()
        let plain = try RawImage(width: 320, height: 200) { x, y in
            Colour(r: UInt8(x * 255 / 319), g: UInt8(y * 255 / 199), b: UInt8((x + y) % 256))
        }.encoded(as: .jpeg)
        _ = try space.folder.write(plain, to: "plain.jpg")
        _ = try space.folder.write(FixtureBytes.jpeg(plain, withICCProfile: try FixtureBytes.libvipsProfile("srgb")),
                                   to: "srgb.jpg")
        _ = try space.folder.write(FixtureBytes.jpeg(plain, withICCProfile: try FixtureBytes.libvipsProfile("p3")),
                                   to: "p3.jpg")
        // One row per source in each run (a source's only row streams its pixels lazily,
        // the path of a first run), one run per size.
        for size in ["80x80", "150x150"] {
            let rows = ["plain", "srgb", "p3"].map { name in [name + ".jpg", size, "\(name)-\(size).jpg"] }
            let run = try await space.run(manifest: CSV.manifest(["src", "size", "out"], rows),
                                          ["--isolation", isolation])
            #expect(run.status == 0, "\(run.result.stderr)")
        }
        for size in ["80x80", "150x150"] {
            let plainOut = try Data(contentsOf: space.output("plain-\(size).jpg"))
            #expect(try Data(contentsOf: space.output("srgb-\(size).jpg")) == plainOut, "srgb at \(size)")
            #expect(try Data(contentsOf: space.output("p3-\(size).jpg")) != plainOut, "p3 at \(size)")
        }
    }
}

/// A minimal ICC matrix/TRC display profile, written byte by byte, for the cases no real
/// profile at hand covers.
struct SyntheticProfile {
    /// A tone curve as `curv` or `para` stores it.
    enum Curve {
        case gamma(Double)
        case table([Double])
        case parametric([Double])
    }

    var deviceClass = "mntr"
    var colorants = SRGBProfileTests.sRGBColorants
    var white: [Double] = [0.9642, 1, 0.8249]
    var curve: Curve
    /// A tag to add with an empty body (such as a lookup table's signature).
    var extraTag: String?

    var bytes: [UInt8] {
        var tags: [(String, [UInt8])] = [("wtpt", xyz(white))]
        for (name, value) in zip(["rXYZ", "gXYZ", "bXYZ"], colorants) { tags.append((name, xyz(value))) }
        for name in ["rTRC", "gTRC", "bTRC"] { tags.append((name, curveBytes)) }
        if let extraTag { tags.append((extraTag, Array("mft2".utf8) + [UInt8](repeating: 0, count: 48))) }
        var body: [UInt8] = []
        var table = u32(UInt32(tags.count))
        let bodyStart = 128 + 4 + 12 * tags.count
        for (name, data) in tags {
            table += Array(name.utf8) + u32(UInt32(bodyStart + body.count)) + u32(UInt32(data.count))
            body += data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
        }
        var header = [UInt8](repeating: 0, count: 128)
        header[0..<4] = ArraySlice(u32(UInt32(128 + table.count + body.count)))
        header[8..<12] = [2, 0x10, 0, 0]
        header[12..<16] = ArraySlice(Array(deviceClass.utf8))
        header[16..<20] = ArraySlice(Array("RGB ".utf8))
        header[20..<24] = ArraySlice(Array("XYZ ".utf8))
        header[36..<40] = ArraySlice(Array("acsp".utf8))
        return header + table + body
    }

    private var curveBytes: [UInt8] {
        switch curve {
        case .gamma(let g):
            return Array("curv".utf8) + [0, 0, 0, 0] + u32(1) + u16(UInt16(g * 256))
        case .table(let samples):
            return Array("curv".utf8) + [0, 0, 0, 0] + u32(UInt32(samples.count))
                + samples.flatMap { u16(UInt16(($0 * 65535).rounded())) }
        case .parametric(let parameters):
            let function: UInt16 = [1: 0, 3: 1, 4: 2, 5: 3, 7: 4][parameters.count] ?? 0
            return Array("para".utf8) + [0, 0, 0, 0] + u16(function) + [0, 0] + parameters.flatMap(fixed)
        }
    }

    private func xyz(_ v: [Double]) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + v.flatMap(fixed) }
    private func fixed(_ v: Double) -> [UInt8] { u32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
    private func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    private func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
}
