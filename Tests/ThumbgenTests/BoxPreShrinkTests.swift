import Foundation
import Testing
@testable import Thumbgen

/// `BoxPreShrink`: when a reduction box-shrinks first, by which whole factors; and, end to end,
/// that outputs made that way have the exact size and the source's colours, with and without
/// alpha.
@Suite("Box pre-shrink")
struct BoxPreShrinkTests {
    @Test("Factors are the largest exact divisors within half the reduction", arguments: [
        (3840, 2160, 256, 144, BoxPreShrink.Expectation.plan(6, 6)),
        (5120, 2880, 256, 144, .plan(10, 10)),
        (1080, 1920, 144, 256, .plan(3, 3)),
        (1600, 1200, 256, 192, .plan(2, 3)),
        (800, 500, 176, 110, .plan(2, 2)),
        (800, 500, 256, 160, .none),      // reduces by under 4 on both axes
        (200, 125, 176, 110, .none),      // a JPEG shrunk on load: the kernel alone
        (4001, 3000, 256, 192, .none),    // 4001 is prime: no divisor near 7
        (1000, 40, 100, 40, .plan(5, 1)), // one axis only
        (100, 100, 400, 400, .none),      // growing
    ])
    func factors(width: Int, height: Int, targetWidth: Int, targetHeight: Int,
                 expected: BoxPreShrink.Expectation) {
        let plan = BoxPreShrink(width: width, height: height, targetWidth: targetWidth,
                                targetHeight: targetHeight, kernel: .lanczos3)
        #expect(BoxPreShrink.Expectation(plan) == expected, "\(width)×\(height) → \(targetWidth)×\(targetHeight)")
    }

    @Test("The nearest kernel never box-shrinks (it samples, it does not average)")
    func nearest() {
        #expect(BoxPreShrink(width: 3840, height: 2160, targetWidth: 256, targetHeight: 144, kernel: .nearest) == nil)
    }

    @Test("End to end: a 2400×1500 source, opaque and with alpha, comes out at the exact size with its quadrants' colours",
          arguments: [false, true])
    func endToEnd(alpha: Bool) async throws {
        let space = try Workspace()
        let colours: [Colour] = [.red, .green, .blue, .yellow]
        let source = RawImage(width: 2400, height: 1500, alpha: alpha) { x, y in
            colours[(y < 750 ? 0 : 2) + (x < 1200 ? 0 : 1)]
        }
        // One row per source, as a first run has them (a shared decode is the other path,
        // covered by SizeGroupIdentityTests).
        for name in ["a", "b", "c"] { try space.fixture(source, "big-\(name).png") }
        let run = try await space.run(manifest: CSV.manifest(["src", "size", "out"], [
            ["big-a.png", "160x100", "a.png"], ["big-b.png", "96x60", "b.png"], ["big-c.png", "300x188", "c.png"],
        ]))
        #expect(run.status == 0, "\(run.result.stderr)")
        for (name, width, height) in [("a.png", 160, 100), ("b.png", 96, 60), ("c.png", 300, 188)] {
            let image = try space.pixels(name)
            #expect(image.width == width && image.height == height, "\(name): \(image.width)×\(image.height)")
            let (w, h) = (image.width, image.height)
            for (index, (x, y)) in [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)].enumerated() {
                #expect(image.pixel(x, y, is: colours[index], tolerance: 2), "\(name) (\(x),\(y)): \(image.pixel(x, y))")
            }
        }
    }
}

extension BoxPreShrink {
    /// What a test expects of a plan.
    enum Expectation: Equatable, Sendable, CustomStringConvertible {
        case plan(Int, Int)
        case none

        init(_ plan: BoxPreShrink?) {
            self = plan.map { .plan($0.horizontal, $0.vertical) } ?? .none
        }

        var description: String {
            switch self {
            case .plan(let h, let v): "\(h)×\(v)"
            case .none: "none"
            }
        }
    }
}
