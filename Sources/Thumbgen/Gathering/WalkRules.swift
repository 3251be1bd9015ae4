import Foundation

/// What a walk leaves alone, and whether it follows links.
public struct WalkRules: Sendable {
    /// Whether symbolic links found in folders are followed (those named on the command line
    /// always are).
    public var followLinks: Bool
    /// The folders never walked into (`--out`, the cache), as canonical paths.
    public var skipped: Set<String>
    /// The loaders `--enable-loader` switched on: PDF and SVG files, which only `pdfload` and
    /// `svgload` open, are taken when theirs is among them.
    public var extraLoaders: Set<String>
    /// A partial walk's paths (canonical): only the files among them, or under a folder among
    /// them, are taken, and only the folders on the way to them listed (a watch's batch:
    /// `--watch`); nil: the whole tree.
    public private(set) var only: Set<String>?

    /// Makes the walk partial: only `paths` (files or folders, which need not exist any more).
    public mutating func walkOnly(_ paths: [String]) {
        only = Set(paths.map(Self.canonical))
    }

    /// Rules that follow links or not, skip `folders` (which need not exist yet) and take the
    /// files of `extraLoaders` too.
    public init(followLinks: Bool = false, skipping folders: [String] = [], extraLoaders: [String] = []) {
        self.followLinks = followLinks
        skipped = Set(folders.map(Self.canonical))
        self.extraLoaders = Set(extraLoaders)
    }

    /// `path` made absolute with every link resolved, as far as it exists: a folder made
    /// later, as `--out` may be while the walk goes, still compares equal.
    static func canonical(_ path: String) -> String {
        var absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var missing: [String] = []
        while true {
            if let real = realpath(absolute, nil) {
                defer { free(real) }
                return ([String(cString: real)] + missing.reversed()).joined(separator: "/")
                    .replacingOccurrences(of: "//", with: "/")
            }
            let url = URL(fileURLWithPath: absolute)
            guard absolute != "/" else { return path }
            missing.append(url.lastPathComponent)
            absolute = url.deletingLastPathComponent().path
        }
    }
}
