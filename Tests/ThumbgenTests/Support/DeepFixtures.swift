import CVips
import Foundation
import Thumbgen

/// A flat-colour fixture at 8 bits, 16 bits or float, with or without an embedded ICC profile.
///
/// The thumbgen savers strip metadata, so these are saved by libvips' operations called by
/// name (`VipsOperationCall`), which keep the profile.
struct FlatFixture: Sendable {
    /// How band values are stored.
    enum Depth: String, Sendable, CustomStringConvertible {
        case eight = "8", sixteen = "16", float = "f"

        /// The libvips band format of this depth.
        var bandFormat: VipsBandFormat {
            switch self {
            case .eight: return VIPS_FORMAT_UCHAR
            case .sixteen: return VIPS_FORMAT_USHORT
            case .float: return VIPS_FORMAT_FLOAT
            }
        }

        /// Short, for file names.
        var description: String { rawValue }
    }

    /// The size in pixels.
    var width = 64, height = 64
    /// One value per band, in the depth's own range: 0–255, 0–65535, or scRGB (linear 0–1).
    var values: [Double]
    var depth: Depth
    /// ICC profile bytes to embed, if any.
    var profile: Data?

    /// An 8-bit grey or sRGB value (0–255) at `depth`: 16-bit is 257 times it (so that it
    /// scales back exactly), float is its linear light (scRGB), as libvips would convert it.
    static func value(_ eightBit: UInt8, at depth: Depth) -> Double {
        switch depth {
        case .eight: return Double(eightBit)
        case .sixteen: return Double(eightBit) * 257
        case .float:
            let v = Double(eightBit) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
    }

    /// Encodes with libvips' saver `saver` ("pngsave_buffer", "tiffsave_buffer").
    func encoded(with saver: String) throws -> Data {
        try VipsRuntime.start()
        let count = width * height * values.count
        let image: UnsafeMutablePointer<VipsImage>?
        switch depth {
        case .eight: image = Self.memoryImage(values.map { UInt8($0) }, count, self)
        case .sixteen: image = Self.memoryImage(values.map { UInt16($0) }, count, self)
        case .float: image = Self.memoryImage(values.map { Float($0) }, count, self)
        }
        guard let image else { throw FixtureError("vips_image_new_from_memory_copy") }
        defer { tg_unref(image) }
        // A memory image is "multiband", which the savers would convert to 8-bit sRGB first;
        // nobody else holds this one yet, so its header may still be set.
        image.pointee.Type = interpretation
        if let profile {
            profile.withUnsafeBytes {
                vips_image_set_blob_copy(image, "icc-profile-data", $0.baseAddress, $0.count)
            }
        }
        return try VipsOperationCall.blob(saver, input: image, output: "buffer")
    }

    /// What the pixels are: grey (one band, or two with alpha) or RGB, at the fixture's depth.
    var interpretation: VipsInterpretation {
        let grey = values.count < 3
        switch depth {
        case .eight: return grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        case .sixteen: return grey ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_RGB16
        case .float: return grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_scRGB
        }
    }

    /// `pixel` repeated over the image, as a new libvips image.
    private static func memoryImage<T>(_ pixel: [T], _ count: Int, _ fixture: FlatFixture)
        -> UnsafeMutablePointer<VipsImage>?
    {
        let samples = (0..<count).map { pixel[$0 % pixel.count] }
        return samples.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(fixture.width),
                                            Int32(fixture.height), Int32(pixel.count),
                                            fixture.depth.bandFormat)
        }
    }
}

/// ICC profiles for fixtures: libvips' own sRGB, and minimal hand-made ICC v2 display
/// profiles (header, tag table, `desc`, `wtpt`, TRCs, and colorants for RGB), so that a test
/// needs no profile file.
enum ICCProfiles {
    /// libvips' built-in sRGB profile (the one `vips_icc_transform` falls back on).
    static func srgb() throws -> Data {
        try VipsOperationCall.blob("profile_load", options: "name=srgb", output: "profile")
    }

    /// A grey display profile with a pure gamma curve and a D50 white: close to sRGB's curve,
    /// so that grey 100 comes out near 100.
    static func grey(gamma: Double = 2.2) -> Data {
        profile(space: "GRAY", tags: [("desc", description("thumbgen test grey")),
                                      ("wtpt", xyz(d50)), ("kTRC", curve(gamma))])
    }

    /// An RGB matrix/TRC display profile with sRGB's primaries (adapted to D50, as in the sRGB
    /// profile) and a pure gamma curve: under 500 bytes, like the small profiles of test suites.
    static func rgb(gamma: Double = 2.2) -> Data {
        let trc = curve(gamma)
        return profile(space: "RGB ", tags: [
            ("desc", description("thumbgen test rgb")), ("wtpt", xyz(d50)),
            ("rXYZ", xyz([0.4361, 0.2225, 0.0139])), ("gXYZ", xyz([0.3851, 0.7169, 0.0971])),
            ("bXYZ", xyz([0.1431, 0.0606, 0.7141])),
            ("rTRC", trc), ("gTRC", trc), ("bTRC", trc),
        ])
    }

    /// The ICC profile connection space's white.
    private static let d50 = [0.9642, 1.0, 0.8249]

    /// A whole profile: 128-byte header, tag table, then each tag's data padded to 4 bytes.
    private static func profile(space: String, tags: [(String, [UInt8])]) -> Data {
        var table: [UInt8] = be32(tags.count), body: [UInt8] = []
        let start = 128 + 4 + 12 * tags.count
        for (signature, data) in tags {
            table += Array(signature.utf8) + be32(start + body.count) + be32(data.count)
            body += data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
        }
        var header = be32(start + body.count) + be32(0) + be32(0x0210_0000)  // size, CMM, v2.1
        header += Array("mntr".utf8) + Array(space.utf8) + Array("XYZ ".utf8)
        header += [UInt8](repeating: 0, count: 12) + Array("acsp".utf8)       // date, signature
        header += [UInt8](repeating: 0, count: 24) + be32(0)                  // platform…, intent
        header += d50.flatMap(s15Fixed16)                                      // illuminant
        header += [UInt8](repeating: 0, count: 48)                            // creator, ID, reserved
        return Data(header + table + body)
    }

    /// `textDescriptionType`: ASCII, then empty Unicode and ScriptCode parts.
    private static func description(_ text: String) -> [UInt8] {
        let ascii = Array(text.utf8) + [0]
        return Array("desc".utf8) + be32(0) + be32(ascii.count) + ascii + be32(0) + be32(0)
            + [0, 0, 0] + [UInt8](repeating: 0, count: 67)
    }

    /// `XYZType` with one value.
    private static func xyz(_ value: [Double]) -> [UInt8] {
        Array("XYZ ".utf8) + be32(0) + value.flatMap(s15Fixed16)
    }

    /// `curveType` with one entry: a pure gamma, in u8Fixed8.
    private static func curve(_ gamma: Double) -> [UInt8] {
        let g = Int((gamma * 256).rounded())
        return Array("curv".utf8) + be32(0) + be32(1) + [UInt8(g >> 8), UInt8(g & 0xFF)]
    }

    /// A big-endian 32-bit field, as ICC stores every number.
    private static func be32(_ value: Int) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8((UInt32(truncatingIfNeeded: value) >> $0) & 0xFF) }
    }

    /// ICC's signed 15.16 fixed-point number.
    private static func s15Fixed16(_ value: Double) -> [UInt8] {
        be32(Int((value * 65536).rounded()))
    }
}

/// libvips operations called by name with their options as a string, which needs no variadic
/// C function: how fixtures are saved with their metadata kept.
enum VipsOperationCall {
    /// Runs operation `name` on `input` (if any) with `options` ("compression=1") and returns
    /// its blob output `output` ("buffer", "profile").
    static func blob(_ name: String, input: UnsafeMutablePointer<VipsImage>? = nil,
                     options: String = "", output: String) throws -> Data {
        try VipsRuntime.start()
        guard let created = vips_operation_new(name) else { throw FixtureError("no operation \(name)") }
        if let input {
            var value = GValue()
            _ = g_value_init(&value, vips_image_get_type())
            g_value_set_object(&value, input)
            g_object_set_property(gObject(created), "in", &value)
            g_value_unset(&value)
        }
        var operation: UnsafeMutablePointer<VipsOperation>? = created
        guard vips_object_set_from_string(vipsObject(created), options) == 0,
              vips_cache_operation_buildp(&operation) == 0, let built = operation else {
            vips_object_unref_outputs(vipsObject(created))
            g_object_unref(created)
            throw FixtureError("\(name) \(options)")
        }
        defer {
            vips_object_unref_outputs(vipsObject(built))
            g_object_unref(built)
        }
        var value = GValue()
        _ = g_value_init(&value, vips_blob_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(gObject(built), output, &value)
        var length = 0
        guard let blob = g_value_get_boxed(&value),
              let bytes = vips_blob_get(blob.assumingMemoryBound(to: VipsBlob.self), &length) else {
            throw FixtureError("\(name) gave no \(output)")
        }
        return Data(bytes: bytes, count: length)
    }

    /// The C casts `G_OBJECT()` and `VIPS_OBJECT()` are macros, which Swift cannot see.
    private static func gObject(_ operation: UnsafeMutablePointer<VipsOperation>)
        -> UnsafeMutablePointer<GObject> {
        UnsafeMutableRawPointer(operation).assumingMemoryBound(to: GObject.self)
    }

    /// See `gObject(_:)`.
    private static func vipsObject(_ operation: UnsafeMutablePointer<VipsOperation>)
        -> UnsafeMutablePointer<VipsObject> {
        UnsafeMutableRawPointer(operation).assumingMemoryBound(to: VipsObject.self)
    }
}
