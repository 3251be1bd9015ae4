/// The memory one source's decode needs, worked out from its header before any pixel is
/// decoded: what the `--max-memory` budget admits.
///
/// The estimate is the largest decoded image the unit holds: width × height at the scale the
/// loader reduces to (JPEG and WebP shrink on load), × the frames kept, × bands (3, or 4 with
/// alpha), × bytes per band (1, or 2 beyond 8 bits). It is an upper bound for a streamed
/// decode, which holds strips of it, and about right for one held in memory (shared by
/// several rows, turned upright, or animated). Where its rows share a still WebP's planes or a
/// JPEG's coefficients, it is those plus every image made from them (held together).
struct DecodeEstimate: Codable, Sendable {
    /// The estimated bytes.
    var bytes: Int64
    /// The header's size, for the message of a refusal.
    var width: Int
    var height: Int

    /// The estimate for `header`, decoded once per group (`scale`: the fraction of full size
    /// the loader decodes at; `allFrames`: every frame kept).
    static func of(_ header: ImageHeader, groups: [(scale: Double, allFrames: Bool)]) -> DecodeEstimate {
        let bands = header.hasAlpha ? 4.0 : 3.0
        let depth = header.isEightBit ? 1.0 : 2.0
        let images = groups.map { group -> Double in
            let width = (Double(header.orientedWidth) * group.scale).rounded(.up)
            let height = (Double(header.orientedHeight) * group.scale).rounded(.up)
            let frames = group.allFrames ? Double(header.frames) : 1
            return width * height * frames * bands * depth
        }
        // A still WebP's rows at up to half size share its planes (`WebPPlanes`): full-size Y
        // and alpha, half-size U and V, held while the rows' images are made from them.
        let sharesPlanes = header.loader == "webpload"
            && groups.contains { !$0.allFrames && $0.scale <= WebPPlanes.largestScale }
        let planes = sharesPlanes
            ? Double(header.orientedWidth) * Double(header.orientedHeight) * (header.hasAlpha ? 2.5 : 1.5) : 0
        // A JPEG's coefficients: two bytes for each of a block's 64, for every block of every
        // component, which is at most two bytes a band a pixel (no chroma subsampling).
        let sharesCoefficients = JPEGCoefficients.areShared(loader: header.loader, groups: groups)
        let coefficients = sharesCoefficients
            ? Double(header.orientedWidth) * Double(header.orientedHeight) * bands * 2 : 0
        // Groups made from planes or coefficients are made in memory before any row renders,
        // so they are held together; lazy decodes stream one after another.
        let held = sharesPlanes || sharesCoefficients ? images.reduce(0, +) : images.max() ?? 0
        return DecodeEstimate(bytes: Int64(min(held + planes + coefficients, Double(Int64.max / 2))),
                                       width: header.orientedWidth, height: header.orientedHeight)
    }
}
