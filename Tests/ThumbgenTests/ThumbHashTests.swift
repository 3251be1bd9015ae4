import Foundation
import Testing
@testable import Thumbgen

/// ThumbHash, written from the published algorithm, against an independent implementation.
///
/// The expected strings were made by thumbhash-python 1.0.1 (PyPI) from the same pixels:
/// `pip download --no-deps thumbhash-python==1.0.1`, unzip, then for each fixture
/// `base64.b64encode(thumbhash.encode.rgba_to_thumbhash(w, h, rgba))`, with `rgba` the fixture's
/// bytes row by row, made by the same formulas as below.
@Suite("Placeholders: ThumbHash")
struct ThumbHashTests {
    /// Pixels made by `pixel` (RGBA), row by row.
    static func rgba(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> [Int]) -> [UInt8] {
        (0..<height).flatMap { y in (0..<width).flatMap { x in pixel(x, y).map { UInt8($0) } } }
    }

    static var fixtures: [(name: String, width: Int, height: Int, pixel: (Int, Int) -> [Int], expected: String)] { [
        ("gradient", 32, 24, { x, y in [x * 8 % 256, y * 10 % 256, (x + y) * 4 % 256, 255] }, "XRgODZpwd4eBiIiHiHiIh3iACPeI"),
        ("alpha", 17, 40, { x, y in [200, x * 15 % 256, 50, y * 6 % 256] }, "XpuGGgw3gLd4iHiAuPeIhIh4gHiIeIg="),
        ("quadrants", 100, 75, { x, y in (x < 50) == (y < 37) ? [220, 20, 30, 255] : [20, 40, 210, 255] },
         "lrYCdZaHh4iId3iAiId3j3f4eIh/"),
        ("portrait", 9, 100, { x, y in [(x * 29 + y * 3) % 256, (y * 7) % 256, 128, 255] }, "3xcGCQZ2hURidXLgZJIwxvk="),
        ("clear", 5, 5, { _, _ in [0, 0, 0, 0] }, "AAiCBQAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="),
        ("dot", 1, 1, { _, _ in [10, 200, 30, 255] }, "VIoon14I9wiIh4hwj3CI+AiIgIAI94cP"),
    ] }

    @Test("Each fixture's hash is the reference implementation's, byte for byte")
    func matchesReference() throws {
        for fixture in Self.fixtures {
            let hash = try #require(ThumbHash.encode(width: fixture.width, height: fixture.height,
                                                     rgba: Self.rgba(fixture.width, fixture.height, fixture.pixel)))
            #expect(Data(hash).base64EncodedString() == fixture.expected, "\(fixture.name)")
        }
    }

    @Test("Sizes outside 1–100, or pixels that do not match them, give no hash")
    func refusesBadInput() {
        #expect(ThumbHash.encode(width: 0, height: 5, rgba: []) == nil)
        #expect(ThumbHash.encode(width: 101, height: 1, rgba: [UInt8](repeating: 0, count: 404)) == nil)
        #expect(ThumbHash.encode(width: 2, height: 2, rgba: [UInt8](repeating: 0, count: 15)) == nil)
    }
}
