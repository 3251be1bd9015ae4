import Foundation

/// A file that holds secrets (a netrc, a `--source-headers` file), as ssh and curl judge one:
/// it should be readable by its owner alone.
public enum SecretFile {
    /// Whether the file at `path` may be read by its group or by others; false when it cannot
    /// be looked at.
    public static func isReadableByOthers(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & (S_IRGRP | S_IROTH) != 0
    }
}
