/// thumbgen's version, as printed by `--version` and sent in `User-Agent`.
public enum ThumbgenVersion {
    /// The version string.
    public static let current = "0.1.0"
}
