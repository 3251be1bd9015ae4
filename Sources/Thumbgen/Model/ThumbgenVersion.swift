/// thumbgen's version, as printed by `--version` and sent in `User-Agent`: the one place it is
/// written (`scripts/package` reads it from here; CHANGELOG.md has an entry for it).
public enum ThumbgenVersion {
    /// The version string.
    public static let current = "0.5.2"
}
