/// The resampling kernel used to scale (iOS `interpolationQuality`).
public enum Kernel: String, Sendable, CaseIterable, Codable {
    case nearest, linear, cubic, mitchell, lanczos2, lanczos3
}
