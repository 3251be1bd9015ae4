import Foundation

/// An image the walk found: its path as a manifest's `src` gives it, and its folder relative
/// to the walked root (`{dir}`; empty at the root and for a file named on the command line).
public struct FoundSource: Sendable, Equatable {
    /// The path: the root as given, then the names below it.
    public var path: String
    /// The folders between the root and the file, joined with `/`.
    public var directory: String
    /// Whether the file's name is not UTF-8: `path` then shows its bad bytes as `\xNN`, and
    /// the file's row fails naming it (no cell can hold the name).
    public var unnamable = false
}

/// Walks the command line's paths in order, each folder's entries in the byte order of their
/// names, one file at a time (a tree of any size costs the folders being listed, not a list
/// of every file). A file is taken when its first bytes are an image's (`FormatSniffer`),
/// whatever its name (a PDF's or an SVG's only when `WalkRules.extraLoaders` has its loader);
/// one that cannot be read is taken too, so that the run names it.
/// Hidden names (a leading dot), the folders in `WalkRules.skipped` and, unless
/// `followLinks`, symbolic links are left alone. Problems (a link loop, a folder that cannot be
/// listed) are kept in `problems` and the walk goes on past them.
public final class SourceWalker {
    /// A folder being listed.
    private struct Folder {
        /// The path as sources below it show it ("" for the root `.`).
        var path: String
        /// The names from the root to it.
        var relative: [String]
        /// Its path with every link resolved, to compare with the skipped folders.
        var canonical: String
        var identity: FileIdentity
        var entries: [Entry]
        var next = 0
        /// A glob's pattern, which files below must match.
        var pattern: PathPattern?
        /// Whether every file below is walked, whatever `WalkRules.only` says.
        var whole = true
    }

    private struct Entry {
        /// The name; one that is not UTF-8 shows its bad bytes as `\xNN`.
        var name: String
        var type: UInt8
        /// The name's bytes, kept only when they are not UTF-8.
        var unnamable: [UInt8]? = nil
    }

    /// A folder as the kernel knows it: two paths to it (a link) have the same identity.
    private struct FileIdentity: Equatable {
        var device: UInt64, inode: UInt64
    }

    private var inputs: ArraySlice<InputPath>
    private let rules: WalkRules
    private var stack: [Folder] = []
    /// The glob being walked and whether a file matched it yet.
    private var glob: (text: String, matched: Bool)?
    /// What went wrong so far; the walk went on past each.
    public private(set) var problems: [GatherError] = []
    /// The symbolic links met in folders and left alone (without `followLinks`) so far.
    public private(set) var skippedLinks = 0

    /// A walk over `inputs`, in their order, by `rules`.
    public init(_ inputs: [InputPath], rules: WalkRules) {
        self.inputs = inputs[...]
        self.rules = rules
    }

    /// The next image, or nil when every input has been walked.
    public func next() -> FoundSource? {
        while true {
            if stack.isEmpty {
                finishGlob()
                guard let input = inputs.popFirst() else { return nil }
                if let found = start(input) { return found }
                continue
            }
            let top = stack.count - 1
            guard stack[top].next < stack[top].entries.count else {
                stack.removeLast()
                continue
            }
            let entry = stack[top].entries[stack[top].next]
            stack[top].next += 1
            if let found = visit(entry, in: stack[top]) { return found }
        }
    }

    private func start(_ input: InputPath) -> FoundSource? {
        switch input {
        case .file(let path):
            if let only = rules.only, !only.contains(WalkRules.canonical(path)) { return nil }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                  Self.isImage(path, extraLoaders: rules.extraLoaders) else {
                problems.append(.notAnImage(path))
                return nil
            }
            return FoundSource(path: path, directory: "")
        case .folder(let path):
            let canonical = WalkRules.canonical(path)
            enter(path == "." ? "" : path, relative: [], canonical: canonical, pattern: nil, whole: isWhole(canonical))
        case .glob(let root, let pattern, let text):
            glob = (text, rules.only != nil)
            let canonical = WalkRules.canonical(root)
            enter(root == "." ? "" : root, relative: [], canonical: canonical, pattern: pattern, whole: isWhole(canonical))
        }
        return nil
    }

    /// Whether every file under the folder `canonical` is walked: always, unless the walk is
    /// partial (`WalkRules.only`) and names neither it nor a folder above it.
    private func isWhole(_ canonical: String) -> Bool {
        guard let only = rules.only else { return true }
        return only.contains { canonical == $0 || canonical.hasPrefix($0 + "/") }
    }

    /// Ends a glob's walk: one that matched no file is a problem, as in a shell.
    private func finishGlob() {
        if let glob, !glob.matched { problems.append(.noMatch(pattern: glob.text)) }
        glob = nil
    }

    private func visit(_ entry: Entry, in folder: Folder) -> FoundSource? {
        guard !entry.name.hasPrefix(".") else { return nil }
        let path = folder.path.isEmpty ? entry.name
            : folder.path.hasSuffix("/") ? folder.path + entry.name : folder.path + "/" + entry.name
        if let bytes = entry.unnamable { return visitUnnamable(bytes, named: entry.name, shown: path, in: folder) }
        let relative = folder.relative + [entry.name]
        var type = entry.type
        if type == UInt8(DT_UNKNOWN) { type = Self.type(path, following: false) }
        let isLink = type == UInt8(DT_LNK)
        if isLink {
            guard rules.followLinks else {
                skippedLinks += 1
                return nil
            }
            type = Self.type(path, following: true)
        }
        switch type {
        case UInt8(DT_DIR):
            if let pattern = folder.pattern, !pattern.canHold(relative) { return nil }
            let canonical = isLink ? WalkRules.canonical(path) : folder.canonical + "/" + entry.name
            let whole = folder.whole || rules.only?.contains(canonical) == true
            // A partial walk goes only into the folders that hold a path it is to walk.
            if !whole, let only = rules.only, !only.contains(where: { $0.hasPrefix(canonical + "/") }) { return nil }
            enter(path, relative: relative, canonical: canonical, pattern: folder.pattern, link: isLink, whole: whole)
            return nil
        case UInt8(DT_REG):
            if !folder.whole, rules.only?.contains(folder.canonical + "/" + entry.name) != true { return nil }
            if let pattern = folder.pattern {
                guard pattern.matches(relative) else { return nil }
                glob?.matched = true
            }
            guard Self.isImage(path, extraLoaders: rules.extraLoaders) else { return nil }
            return FoundSource(path: path, directory: folder.relative.joined(separator: "/"))
        default:
            return nil
        }
    }

    /// Starts listing the folder at `path`, unless it is skipped or leads back to a folder
    /// being listed.
    private func enter(_ path: String, relative: [String], canonical: String, pattern: PathPattern?,
                       link: Bool = false, whole: Bool = true) {
        guard !rules.skipped.contains(canonical) else { return }
        let shown = path.isEmpty ? "." : path
        var info = stat()
        guard stat(shown, &info) == 0 else {
            problems.append(.unreadableFolder(shown, reason: String(cString: strerror(errno))))
            return
        }
        let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        if let ancestor = stack.first(where: { $0.identity == identity }) {
            problems.append(.linkLoop(link: shown, target: ancestor.path.isEmpty ? "." : ancestor.path))
            return
        }
        guard let entries = list(shown) else { return }
        stack.append(Folder(path: path, relative: relative, canonical: canonical, identity: identity,
                            entries: entries, pattern: pattern, whole: whole))
    }

    /// The entries of `folder` in the byte order of their names, `.` and `..` left out; nil
    /// (and a problem) when it cannot be listed.
    private func list(_ folder: String) -> [Entry]? {
        guard let directory = opendir(folder) else {
            problems.append(.unreadableFolder(folder, reason: String(cString: strerror(errno))))
            return nil
        }
        defer { closedir(directory) }
        var entries: [Entry] = []
        while let raw = readdir(directory) {
            let type = raw.pointee.d_type
            let entry: Entry? = withUnsafeBytes(of: &raw.pointee.d_name) { bytes in
                let name = bytes.prefix { $0 != 0 }
                if name.elementsEqual([46]) || name.elementsEqual([46, 46]) { return nil }
                if let text = String(validating: name, as: UTF8.self) { return Entry(name: text, type: type) }
                let raw = Array(name)
                return Entry(name: CellText.escapingInvalid(raw[...]), type: type, unnamable: raw)
            }
            if let entry { entries.append(entry) }
        }
        entries.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return entries
    }

    /// An entry whose name is not UTF-8 (`escaped`, its bad bytes as `\xNN`): an image file
    /// among them is found, its row to fail naming it (`shown`, its path); a folder cannot be walked by a name no
    /// path can hold, and is a problem. Links are left alone, as in any walk without
    /// `followLinks`, or followed to a file.
    private func visitUnnamable(_ name: [UInt8], named escaped: String, shown: String, in folder: Folder) -> FoundSource? {
        let bytes = Array(folder.path.utf8) + (folder.path.isEmpty || folder.path.hasSuffix("/") ? [] : [47]) + name
        let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
        var info = stat()
        guard lstat(terminated, &info) == 0 else { return nil }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard rules.followLinks else {
                skippedLinks += 1
                return nil
            }
            guard stat(terminated, &info) == 0 else { return nil }
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            problems.append(.unnamable(folder: shown))
            return nil
        case S_IFREG:
            if let pattern = folder.pattern, !pattern.matches(folder.relative + [escaped]) { return nil }
            guard Self.isImage(pathBytes: bytes, extraLoaders: rules.extraLoaders) else { return nil }
            return FoundSource(path: shown, directory: folder.relative.joined(separator: "/"), unnamable: true)
        default:
            return nil
        }
    }

    /// The `d_type` of the file at `path`, from `stat` or `lstat`; `DT_UNKNOWN` when it is gone.
    private static func type(_ path: String, following: Bool) -> UInt8 {
        var info = stat()
        guard (following ? stat(path, &info) : lstat(path, &info)) == 0 else { return UInt8(DT_UNKNOWN) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return UInt8(DT_DIR)
        case S_IFREG: return UInt8(DT_REG)
        case S_IFLNK: return UInt8(DT_LNK)
        default: return UInt8(DT_UNKNOWN)
        }
    }

    /// Whether the file at `path` starts like an image thumbgen reads (a PDF or an SVG when
    /// `extraLoaders` has its loader), or cannot be read (the run then names it, rather than the
    /// walk losing it).
    static func isImage(_ path: String, extraLoaders: Set<String>) -> Bool {
        isImage(extraLoaders: extraLoaders) { FormatSniffer.header(path: path, length: $0) }
    }

    /// The same for a path given as bytes, which need not be UTF-8.
    static func isImage(pathBytes: [UInt8], extraLoaders: Set<String>) -> Bool {
        isImage(extraLoaders: extraLoaders) { FormatSniffer.header(pathBytes: pathBytes, length: $0) }
    }

    /// The judgement on the first bytes `read` gives of a file (nil: it cannot be read).
    private static func isImage(extraLoaders: Set<String>, read: (Int) -> [UInt8]?) -> Bool {
        // The vector sniff needs more bytes: read them only when it may be asked.
        let length = extraLoaders.isEmpty ? FormatSniffer.headerLength : FormatSniffer.vectorHeaderLength
        guard let header = read(length) else { return true }
        if FormatSniffer.loader(forHeader: header) != nil { return true }
        guard !extraLoaders.isEmpty, let vector = FormatSniffer.vectorLoader(forHeader: header) else { return false }
        return extraLoaders.contains(vector)
    }
}

extension SourceWalker {
    /// Whether the file at `path` can be read and starts like an image thumbgen reads, a PDF's
    /// or an SVG's only when `extraLoaders` has its loader (a command line's file is an image
    /// to walk, not a manifest).
    public static func looksLikeImage(_ path: String, extraLoaders: [String] = []) -> Bool {
        FormatSniffer.header(path: path) != nil && isImage(path, extraLoaders: Set(extraLoaders))
    }
}
