/// How a source is made to fit the target box (docs/manifest.md, column `fit`).
public enum Fit: String, Sendable, CaseIterable, Codable {
    /// Fit within the box keeping the aspect ratio, no padding (iOS ScaleAspectFit, unpadded).
    case inside
    /// Fill the box keeping the aspect ratio, cropping the excess at `gravity` (ScaleAspectFill).
    case cover
    /// Fit within the box, then pad with `background` to its exact size (ScaleAspectFit).
    case contain
    /// Stretch to the box, ignoring the aspect ratio (ScaleToFill).
    case fill
    /// No scaling: cut the box out of the source at `gravity` (Center, Top, Left, ...).
    case none
    /// As small as possible keeping the aspect ratio while covering the box, with nothing cut:
    /// one side meets the box, the other may exceed it (sharp's `outside`). With one side
    /// given, as `inside`.
    case outside
}
