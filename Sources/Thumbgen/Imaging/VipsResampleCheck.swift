import CVips
import Foundation

/// Whether the C resampler (`CResample`) makes the bytes this process's libvips makes. It
/// reproduces libvips 8.14's `vips_resize` and `vips_shrink` then `vips_reduce` arithmetic; a
/// later libvips may round otherwise, and nothing else would notice. So the first time a process
/// needs it, four small images are resampled both ways (about 10 ms of CPU, much of it
/// libvips starting the threads its first render would start anyway), and the C
/// resampler is used only when every byte agrees: elsewhere rows go through libvips' own
/// operations, as before the C resampler existed. `doctor` says which.
enum VipsResampleCheck {
    /// What the check found.
    struct Verdict: Sendable {
        /// Whether the C resampler may be used.
        var agrees: Bool
        /// One line for `doctor`.
        var summary: String
    }

    /// The verdict, found once per process. `THUMBGEN_NATIVE_RESAMPLE=off` turns the C resampler
    /// off without a check (to rule it out when an output looks wrong).
    static let verdict: Verdict = {
        if ProcessInfo.processInfo.environment["THUMBGEN_NATIVE_RESAMPLE"] == "off" {
            return Verdict(agrees: false, summary: "off (THUMBGEN_NATIVE_RESAMPLE=off): libvips' own resize")
        }
        let differing = differences()
        guard differing.isEmpty else {
            return Verdict(agrees: false, summary: "not used: libvips \(VipsRuntime.version) resamples otherwise "
                           + "(\(differing.joined(separator: "; "))); libvips' own resize is used")
        }
        return Verdict(agrees: true, summary: "in use: its bytes match libvips \(VipsRuntime.version)'s "
                       + "resize in \(cases.count) checked cases")
    }()

    /// Whether the C resampler may be used.
    static var agrees: Bool { verdict.agrees }

    /// Sources and targets that take every path of the C resampler: a reduce under 2 (plain
    /// `vips_resize`), a box pre-shrink then a reduce, the vector reduce (100,000 pixels and
    /// more after the shrink), grey, and each kernel the renderer and placeholders use most.
    /// Each is one `NativeResampleTests` verifies against libvips 8.14 byte for byte.
    static let cases: [(width: Int, height: Int, bands: Int, to: (Int, Int), kernel: Kernel)] = [
        (97, 61, 3, (64, 40), .lanczos3),
        (200, 150, 3, (37, 28), .mitchell),
        (333, 200, 1, (77, 46), .linear),
        (400, 260, 3, (390, 254), .lanczos3),
    ]

    /// The cases whose bytes differ, described; empty when all agree.
    static func differences() -> [String] {
        var found: [String] = []
        for (index, item) in cases.enumerated() {
            let label = "\(item.width)×\(item.height) to \(item.to.0)×\(item.to.1) \(item.kernel)"
            guard let source = try? pattern(width: item.width, height: item.height, bands: item.bands,
                                            seed: UInt64(index + 1)) else {
                found.append("\(label): no test image")
                continue
            }
            let choice = ResampleChoice(width: item.width, height: item.height, targetWidth: item.to.0,
                                        targetHeight: item.to.1, kernel: item.kernel, frames: 1)
            guard let native = source.resampledInMemory(
                x: 0, y: 0, width: item.width, height: item.height, toWidth: item.to.0, height: item.to.1,
                kernel: item.kernel, preShrink: choice.preShrink, vectorCode: choice.vectorCode, checked: false)
            else {
                found.append("\(label): declined")
                continue
            }
            // What a render builds when the C resampler declines.
            let own = try? VipsGraphLock.withLock { () throws(ImagingError) -> VipsImageRef in
                try ThumbnailRenderer().resample(source, toWidth: item.to.0, height: item.to.1, kernel: item.kernel,
                                                 frames: 1).copiedToMemory()
            }
            guard let own else {
                found.append("\(label): libvips failed")
                continue
            }
            if bytes(of: own) != bytes(of: native) { found.append(label) }
        }
        // The check's operations and their pixels would stay in libvips' operation cache:
        // trimmed out (a cache of no size keeps nothing), then its size set back.
        let kept = vips_cache_get_max()
        vips_cache_set_max(0)
        vips_cache_set_max(kept)
        return found
    }

    /// An image in memory with detail everywhere (ramps, a checkerboard and noise from `seed`),
    /// so that every tap of a kernel counts.
    private static func pattern(width: Int, height: Int, bands: Int, seed: UInt64) throws(ImagingError) -> VipsImageRef {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                for x in 0..<width {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let noise = UInt8(truncatingIfNeeded: state >> 56)
                    let at = (y * width + x) * bands
                    guard bands >= 3 else {
                        out[at] = noise
                        continue
                    }
                    out[at] = UInt8((x * 7 + y * 3) % 256)
                    out[at + 1] = (x / 3 + y / 5) % 2 == 0 ? 230 : 20
                    out[at + 2] = noise
                }
            }
        }
        let pointer = pixels.withUnsafeBytes { bytes in
            vips_image_new_from_memory_copy(bytes.baseAddress, bytes.count, Int32(width), Int32(height),
                                            Int32(bands), VIPS_FORMAT_UCHAR)
        }
        guard let pointer else { throw .libvips(operation: "new_from_memory", message: VipsErrorBuffer.take()) }
        pointer.pointee.Type = bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        return VipsImageRef(owning: pointer)
    }

    /// The pixels of an image held in memory, row by row; empty when it is not.
    private static func bytes(of image: VipsImageRef) -> [UInt8] {
        guard let base = tg_memory_pixels(image.pointer) else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: tg_line_size(image.pointer) * image.height))
    }
}
