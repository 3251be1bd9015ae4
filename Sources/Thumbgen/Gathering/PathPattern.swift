import Foundation

/// A glob over paths under a folder, split at `/`: each component is matched with
/// `fnmatch(3)` (`*`, `?`, `[...]`, none of which crosses a `/`), and a component `**` matches
/// any number of folders, none included, as in fast-glob and zsh.
public struct PathPattern: Sendable, Equatable {
    /// The pattern's components, below the folder it is walked from.
    public let components: [String]

    /// The pattern `text` (relative to the walked folder).
    public init(_ text: String) {
        components = text.split(separator: "/").map(String.init)
    }

    /// Whether `text` holds a glob character at all.
    public static func isGlob(_ text: String) -> Bool {
        text.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// Whether the file at the relative path whose components are `path` matches.
    public func matches(_ path: [String]) -> Bool {
        Self.match(components[...], path[...], folder: false)
    }

    /// Whether a folder at the relative path `path` can hold a file that matches: the walk
    /// goes into no other.
    public func canHold(_ path: [String]) -> Bool {
        Self.match(components[...], path[...], folder: true)
    }

    private static func match(_ pattern: ArraySlice<String>, _ path: ArraySlice<String>, folder: Bool) -> Bool {
        guard let name = path.first else {
            // A folder can hold a match while pattern is left to match the names in it.
            return folder ? !pattern.isEmpty : pattern.allSatisfy { $0 == "**" }
        }
        guard let first = pattern.first else { return false }
        if first == "**" {
            return match(pattern.dropFirst(), path, folder: folder) || match(pattern, path.dropFirst(), folder: folder)
        }
        return fnmatch(first, name, 0) == 0 && match(pattern.dropFirst(), path.dropFirst(), folder: folder)
    }
}

/// One path from the command line, as the walk takes it.
public enum InputPath: Sendable, Equatable {
    /// A file named as it is: its `{dir}` is empty.
    case file(String)
    /// A folder, walked; `{dir}` is relative to it.
    case folder(String)
    /// The files under `root` that `pattern` matches; `{dir}` is relative to `root`, the
    /// pattern's part before its first glob character. `text` is the pattern as given.
    case glob(root: String, pattern: PathPattern, text: String)

    /// What `argument` names: an existing file or folder (a link on the command line is
    /// followed, as `find -H` and `du` do), else a glob when it holds a glob character.
    public static func classify(_ argument: String) throws(GatherError) -> InputPath {
        let path = trimmed(argument)
        var info = stat()
        if stat(path, &info) == 0 {
            return (info.st_mode & S_IFMT) == S_IFDIR ? .folder(path) : .file(path)
        }
        guard PathPattern.isGlob(path) else { throw .noSuchPath(argument) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let literal = parts.prefix { !PathPattern.isGlob($0) }
        var root = literal.joined(separator: "/")
        if root.isEmpty { root = path.hasPrefix("/") ? "/" : "." }
        let rest = parts.dropFirst(literal.count).joined(separator: "/")
        guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw .noMatch(pattern: argument) }
        return .glob(root: root, pattern: PathPattern(rest), text: argument)
    }

    /// `path` without trailing slashes (`/` stays).
    static func trimmed(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
