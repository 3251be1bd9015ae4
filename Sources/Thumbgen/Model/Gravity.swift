/// Where the kept part of a source sits when `cover` or `none` crops, or `contain` pads.
public enum Gravity: String, Sendable, CaseIterable, Codable {
    case center, top, bottom, left, right
    case topLeft = "top-left", topRight = "top-right"
    case bottomLeft = "bottom-left", bottomRight = "bottom-right"
    /// libvips smart crop: the region most likely to draw the eye.
    case attention
    /// libvips smart crop: the region with the most detail.
    case entropy

}
