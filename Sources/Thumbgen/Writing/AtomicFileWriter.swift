import Foundation
import Synchronization

/// Writes outputs so that nothing partial is ever visible: bytes go to a temporary file in the
/// destination's folder, then `rename` puts them in place in one step. A file whose bytes would
/// not change is left alone, mtime included.
public struct AtomicFileWriter: Sendable {
    /// What a write did.
    public enum Outcome: String, Sendable, Equatable {
        /// New or changed bytes were put in place.
        case written
        /// The file already held exactly these bytes; it was not touched.
        case unchanged
    }

    /// Why a write failed.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// The path concerned and what went wrong.
        public var description: String
        /// Whether the path escaped the output folder (through a symbolic link).
        public var escaped = false
    }

    /// The output folder; every write lands under it.
    public let root: URL
    private let rootRealPath: String
    /// Temporary files in flight, removed on interruption.
    let inFlight: TemporaryFiles
    /// Folders already cleared of temporary files that a killed run left behind.
    private let swept = SweptFolders()
    /// Hears of every folder this writer creates under the root (the record of placed files).
    let madeFolders: MadeFolders?

    /// Writes under `root`, which is created if missing; `madeFolders` hears of each folder
    /// made under it.
    public init(root: URL, inFlight: TemporaryFiles = .shared, madeFolders: MadeFolders? = nil) throws(Failure) {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "\(root.path): cannot create the output folder")
        }
        guard let real = realpath(root.path, nil) else {
            throw Failure(description: "\(root.path): cannot resolve the output folder")
        }
        defer { free(real) }
        self.root = root
        self.rootRealPath = String(cString: real)
        self.inFlight = inFlight
        self.madeFolders = madeFolders
        guard access(rootRealPath, W_OK) == 0 else {
            throw Failure(description: "\(root.path): the output folder is not writable")
        }
    }

    /// Puts `data` at `relativePath` under the root, atomically, unless it is already there.
    public func write(_ data: Data, to relativePath: String) throws(Failure) -> Outcome {
        try write(data, to: relativePath, placing: { $0() }) ?? .written
    }

    /// Decides, at the last moment, whether a file written goes in place: runs the rename it
    /// is given and says whether it worked, or runs nothing and says nil (the row it is for has
    /// ended: a cancel must not race a file into place behind its row's back).
    public typealias Placement = @Sendable (_ rename: () -> Bool) -> Bool?

    /// `write(_:to:)`, the rename made through `placing`; nil when `placing` declined it (the
    /// temporary file is gone then).
    public func write(_ data: Data, to relativePath: String, placing: Placement) throws(Failure) -> Outcome? {
        let (resolved, fileName) = try resolve(relativePath)
        let target = resolved + "/" + fileName
        if Self.holds(target, exactly: data) { return .unchanged }
        guard let temporary = TemporaryFile(in: resolved, for: fileName, registry: inFlight) else {
            throw Failure(description: "\(relativePath): cannot write: \(String(cString: strerror(errno)))")
        }
        // No fsync: an output is only ever seen complete or not at all (rename), and syncing
        // each small file would cost more than encoding it.
        guard data.withUnsafeBytes(temporary.write) else {
            let reason = String(cString: strerror(errno))
            temporary.discard()
            throw Failure(description: "\(relativePath): cannot write: \(reason)")
        }
        var declined = false
        // The rename's errno, kept before `placing` unlocks anything (which may set errno).
        var failure: Int32 = 0
        let placed = temporary.place { path in
            guard let renamed = placing({
                guard rename(path, target) == 0 else {
                    failure = errno
                    return false
                }
                return true
            }) else {
                declined = true
                return false
            }
            return renamed
        }
        guard placed else {
            let reason = String(cString: strerror(failure))
            temporary.discard()
            if declined { return nil }
            throw Failure(description: "\(relativePath): cannot put in place: \(reason)")
        }
        return .written
    }

    /// The real path of `relativePath` under the root, its folders followed (and made if
    /// missing); throws when it would lead outside the root. Writes no file.
    public func confinedPath(_ relativePath: String) throws(Failure) -> String {
        let (folder, fileName) = try resolve(relativePath)
        return folder + "/" + fileName
    }

    /// Whether `path` is a regular file of `size` bytes whose SHA-256 is `sha256` (the size
    /// first: a different size costs no read).
    static func fileHolds(_ path: String, sha256: String, size: Int) -> Bool {
        stampIfHolds(path, sha256: sha256, size: size) != nil
    }

    /// `fileHolds`, giving the stamp of the very file that was read (taken on its open
    /// descriptor) when it holds the bytes: the warm journal keeps it.
    static func stampIfHolds(_ path: String, sha256: String, size: Int) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              Int(info.st_size) == size else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == size,
              ContentDigest.ofFile(descriptor: fd) == sha256 else { return nil }
        return FileStamp(info)
    }

    /// The real folder an output goes in (made if missing, confined to the root, cleared of a
    /// killed run's temporary files the first time it is met) and the output's file name.
    private func resolve(_ relativePath: String) throws(Failure) -> (folder: String, fileName: String) {
        // Most outputs sit in `--out` itself: no folder to walk, and the root's sweep is a flag.
        if !relativePath.containsBytes("/"), !relativePath.isEmpty, relativePath != ".",
           relativePath != ".." {
            swept.sweepRootOnce(rootRealPath)
            return (rootRealPath, relativePath)
        }
        // Split as bytes: splitting the string by characters (grapheme clusters) was most of
        // a warm row's cost here.
        let components = relativePath.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
        guard let fileName = components.last else {
            throw Failure(description: "\(relativePath): not a file name")
        }
        let folder = try confinedFolder(components.dropLast(), for: relativePath)
        swept.sweepOnce(folder)
        return (folder, fileName)
    }

    /// Walks (and creates) the folders of an output one level at a time, so that a symbolic
    /// link inside `--out` can never lead thumbgen to create or write anything outside it.
    /// Returns the real path of the innermost folder.
    private func confinedFolder(_ folders: ArraySlice<String>, for relativePath: String)
        throws(Failure) -> String
    {
        var current = rootRealPath
        var relative = ""
        for name in folders where !name.isEmpty && name != "." {
            let next = current + "/" + name
            relative += relative.isEmpty ? name : "/" + name
            var info = stat()
            if lstat(next, &info) != 0 {
                let made = mkdir(next, 0o777) == 0
                guard made || errno == EEXIST, lstat(next, &info) == 0 else {
                    throw Failure(description: "\(relativePath): cannot create the folder \(name)")
                }
                if made { madeFolders?.note(relative) }
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                current = next
            case S_IFLNK:
                guard let real = realpath(next, nil) else {
                    throw Failure(description: "\(relativePath): \(name) is a broken link")
                }
                let target = String(cString: real)
                free(real)
                guard target == rootRealPath || target.hasPrefix(rootRealPath + "/") else {
                    throw Failure(description: "\(relativePath): leads outside --out through a link",
                                  escaped: true)
                }
                current = target
            default:
                throw Failure(description: "\(relativePath): \(name) exists and is not a folder")
            }
        }
        return current
    }

    /// Whether `path` is a regular file holding exactly `data` (size checked before reading).
    private static func holds(_ path: String, exactly data: Data) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              Int(info.st_size) == data.count else { return false }
        return FileManager.default.contents(atPath: path) == data
    }
}

/// The folders a writer has swept of stale temporary files: each once per run.
final class SweptFolders: Sendable {
    private let folders = Mutex<Set<String>>([])
    private let rootSwept = Atomic<Bool>(false)

    /// Sweeps the root folder, `root`, unless this run already has: a flag, not a set, for
    /// the folder nearly every output is in.
    func sweepRootOnce(_ root: String) {
        if rootSwept.load(ordering: .acquiring) { return }
        sweepOnce(root)
        rootSwept.store(true, ordering: .releasing)
    }

    /// Sweeps `folder` unless this run already has.
    func sweepOnce(_ folder: String) {
        let first = folders.withLock { $0.insert(folder).inserted }
        if first { TemporaryName.sweep(folder) }
    }
}
