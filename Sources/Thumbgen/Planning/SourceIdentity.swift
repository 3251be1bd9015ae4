import Crypto
import Foundation

/// What a row's source is called for sharding: a text made from the `src` cell alone, so that
/// every machine, whatever folder it checked the manifest out into and whatever its current
/// folder, and every version of thumbgen, computes the same one (docs/cache.md, "Sharding").
///
/// - A URL other than `file:` is its cell as written (trimmed of white space).
/// - A `file:` URL is its path, and a path is itself, both lexically normalised: empty and `.`
///   components dropped, `..` removing the component before it (a leading `..` of a relative
///   path stays). A relative path stays relative (to the manifest's folder), an absolute one
///   stays absolute: the folder the manifest sits in is never part of the identity.
/// - A record with no readable `src` cell has the empty identity.
///
/// So `a.jpg`, `./a.jpg` and `img/../a.jpg` are one source, as they are for the run's shared
/// decode; `a.jpg` and the same file written as an absolute path are two, and may fall into
/// two shards (each then decodes the file once: outputs stay byte-identical).
public enum SourceIdentity {
    /// The identity of the source the `src` cell `cell` names (nil: the record had none).
    public static func of(src cell: String?) -> String {
        guard let text = cell?.trimmingWhitespace, !text.isEmpty else { return "" }
        if let scheme = SourceResolver.scheme(of: text) {
            guard scheme == "file" else { return text }
            // The resolver reads a file: URL's path the same way (percent-decoded).
            return normalised(URL(string: text)?.path ?? String(text.dropFirst(5)))
        }
        return normalised(text)
    }

    /// The identity's place among shards: the first 8 bytes of the SHA-256 of its UTF-8 bytes,
    /// read as a big-endian unsigned 64-bit number. The shard is this number modulo the count.
    public static func hash(_ identity: String) -> UInt64 {
        SHA256.hash(data: Data(identity.utf8)).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// `path` with empty and `.` components dropped and `..` folded into the component before
    /// it, by text alone (no file system: the file need not exist where this runs).
    static func normalised(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var kept: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                if let last = kept.last, last != ".." {
                    kept.removeLast()
                } else if !absolute {
                    kept.append(component)  // above the manifest's folder: part of the name
                }  // above the root is the root
            default: kept.append(component)
            }
        }
        return (absolute ? "/" : "") + kept.joined(separator: "/")
    }
}
