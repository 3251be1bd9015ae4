import CJPEGScale
import Foundation

/// A JPEG's DCT coefficients, read once, from which each DCT scale its rows need is made
/// (`tg_jpeg_scale.h`).
///
/// libjpeg scales while it decodes, but Huffman-decodes the whole file for every scale, so
/// rows needing ½, ¼ and ⅛ paid three decodes; from the coefficients, a scale costs its
/// reduced IDCTs and colour conversion alone. A scale's pixels are those of libjpeg's own
/// scaled decode, byte for byte (`JPEGCoefficientsTests`), so a row's bytes are the same
/// whichever other rows share the coefficients. Full-size rows are decoded by libvips.
final class JPEGCoefficients: @unchecked Sendable {
    /// The DCT scales the coefficients give, as shrink factors.
    static let factors: Set<Int> = [2, 4, 8]

    /// Whether a source's decode groups read its coefficients: a JPEG's, when two or more
    /// groups decode below full size. With one, libjpeg's own scaled decode is faster (it need
    /// not keep the coefficients), so every one-size run decodes as libvips does.
    static func areShared(loader: String, groups: [(scale: Double, allFrames: Bool)]) -> Bool {
        loader == "jpegload" && Set(groups.filter { !$0.allFrames && $0.scale < 1 }.map(\.scale)).count > 1
    }

    private let coefficients: OpaquePointer
    /// Full size, as stored (before any orientation).
    let width: Int
    let height: Int
    /// Bands of the pixels: 1 (grey) or 3 (RGB).
    let bands: Int

    private init(_ coefficients: OpaquePointer) {
        self.coefficients = coefficients
        width = Int(tg_jpeg_coefficients_width(coefficients))
        height = Int(tg_jpeg_coefficients_height(coefficients))
        bands = Int(tg_jpeg_coefficients_bands(coefficients))
    }

    deinit { tg_jpeg_coefficients_free(coefficients) }

    /// The coefficients of the JPEG at `path`; nil for one whose scaled decode they cannot
    /// reproduce (CMYK, 12-bit, unusual sampling, any damage libjpeg warns of), which libvips
    /// decodes instead, so that a damaged file fails as it always has.
    static func read(path: String) -> JPEGCoefficients? {
        SharedDecode.decodeFile(path) { tg_jpeg_coefficients_read($0, $1).map(JPEGCoefficients.init) }
    }

    /// The size libvips' loader gives the file at 1/`factor`: libjpeg's scaled size cropped
    /// to whole source pixels (`width` / `factor`, rounded down); nil where that leaves none,
    /// which libvips' loader refuses.
    func size(factor: Int) -> (width: Int, height: Int)? {
        let size = (width: width / factor, height: height / factor)
        return size.width >= 1 && size.height >= 1 ? size : nil
    }

    /// The image at 1/`factor` (one of `factors`), in memory, with the metadata of `source`
    /// (the file's header image): what libvips' loader gives at that shrink, whose header
    /// differs from the full size's in the size alone (`size(factor:)`).
    func image(factor: Int, like source: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        guard let (width, height) = size(factor: factor) else {
            throw .libvips(operation: "jpegload", message: "shrinking \(self.width)×\(self.height) by \(factor) leaves no pixel")
        }
        return try VipsImageRef.rendered(
            width: width, height: height, bands: bands, like: source,
            failure: .libvips(operation: "jpegload", message: "cannot scale the JPEG by 1/\(factor) to \(width)×\(height)")
        ) { buffer in
            source.bands == bands && tg_jpeg_coefficients_render(
                coefficients, Int32(factor), Int32(width), Int32(height), buffer.baseAddress, buffer.count) == 0
        }
    }
}
