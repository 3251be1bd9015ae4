/// A problem finding a run's sources in files, folders and globs, as opposed to a problem
/// with one row. Each names the path at fault.
public enum GatherError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A path on the command line that does not exist.
    case noSuchPath(String)
    /// A glob on the command line that matches no file.
    case noMatch(pattern: String)
    /// A file named on the command line whose content is not an image.
    case notAnImage(String)
    /// With `--follow-links`, a link that leads back to a folder it lies in.
    case linkLoop(link: String, target: String)
    /// A folder that cannot be listed.
    case unreadableFolder(String, reason: String)
    /// A folder whose name is not UTF-8 (shown with its bad bytes as `\xNN`), which no path
    /// can hold: it is not walked. (A file's such name fails its row instead.)
    case unnamable(folder: String)

    /// A sentence naming the path and what is wrong.
    public var description: String {
        switch self {
        case .noSuchPath(let path):
            return "\(path): no such file or folder"
        case .noMatch(let pattern):
            return "\(pattern): the pattern matches no file"
        case .notAnImage(let path):
            return "\(path): not an image (JPEG, PNG, WebP, GIF, TIFF, HEIF/AVIF or JPEG XL, by its content)"
        case .linkLoop(let link, let target):
            return "\(link): the symbolic link leads back to \(target), a folder it lies in; not followed"
        case .unreadableFolder(let path, let reason):
            return "\(path): cannot list the folder: \(reason)"
        case .unnamable(let folder):
            return "\(folder): the folder's name is not UTF-8, which no manifest can name; not walked"
        }
    }
}
