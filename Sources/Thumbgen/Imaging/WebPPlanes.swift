import CWebPScale
import Foundation

/// A lossy WebP decoded once into its Y, U, V (and alpha) planes, from which each size its
/// rows need is area-averaged (`tg_webp_scale.h`).
///
/// libwebp scales while it decodes, so decoding at each row's scale would decode the whole
/// bitstream once per size; from the planes, a size costs its averaging alone. A size's pixels
/// depend only on the file and the size, so a row's bytes are the same whichever other rows
/// share the planes. Sizes above half the full size (where the half-size chroma planes would
/// have to grow) are decoded by libvips instead, by the row's own scale.
final class WebPPlanes: @unchecked Sendable {
    /// The largest scale the planes give: chroma is stored at half size and only ever reduced.
    static let largestScale = 0.5

    private let planes: OpaquePointer
    /// Full size, as stored (before any orientation).
    let width: Int
    let height: Int
    /// Whether the image has an alpha plane.
    let hasAlpha: Bool
    /// Bytes the planes hold.
    let bytes: Int

    private init(_ planes: OpaquePointer) {
        self.planes = planes
        width = Int(tg_webp_planes_width(planes))
        height = Int(tg_webp_planes_height(planes))
        hasAlpha = tg_webp_planes_has_alpha(planes) != 0
        bytes = tg_webp_planes_bytes(planes)
    }

    deinit { tg_webp_planes_free(planes) }

    /// The planes of the still, lossy WebP at `path`; nil for anything else (lossless,
    /// animated, damaged, unreadable), which libvips decodes instead, so that a damaged file
    /// fails as it always has.
    static func decode(path: String) -> WebPPlanes? {
        SharedDecode.decodeFile(path) { tg_webp_planes_decode($0, $1).map(WebPPlanes.init) }
    }

    /// The size `scale` (at most `largestScale`) of the full size gives, rounded as libvips'
    /// loader rounds it.
    func size(at scale: Double) -> (width: Int, height: Int) {
        (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// The image at `scale` (at most `largestScale`) of its full size, in memory, with the
    /// metadata of `source` (the file's header image).
    func image(at scale: Double, like source: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        let (width, height) = size(at: scale)
        return try VipsImageRef.rendered(
            width: width, height: height, bands: hasAlpha ? 4 : 3, like: source,
            failure: .libvips(operation: "webpload", message: "cannot scale the WebP to \(width)×\(height)")
        ) { buffer in
            tg_webp_planes_render(planes, Int32(width), Int32(height), buffer.baseAddress, buffer.count) == 0
        }
    }
}
