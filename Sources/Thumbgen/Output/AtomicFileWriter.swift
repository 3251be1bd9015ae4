import Foundation

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

    /// Writes under `root`, which is created if missing.
    public init(root: URL, inFlight: TemporaryFiles = .shared) throws(Failure) {
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
        guard access(rootRealPath, W_OK) == 0 else {
            throw Failure(description: "\(root.path): the output folder is not writable")
        }
    }

    /// Puts `data` at `relativePath` under the root, atomically, unless it is already there.
    public func write(_ data: Data, to relativePath: String) throws(Failure) -> Outcome {
        let destination = root.appendingPathComponent(relativePath)
        let folder = destination.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "\(folder.path): cannot create the folder")
        }
        guard let realFolder = realpath(folder.path, nil) else {
            throw Failure(description: "\(folder.path): cannot resolve the folder")
        }
        let resolved = String(cString: realFolder)
        free(realFolder)
        guard resolved == rootRealPath || resolved.hasPrefix(rootRealPath + "/") else {
            throw Failure(description: "\(relativePath): leads outside --out through a link",
                          escaped: true)
        }
        let target = resolved + "/" + destination.lastPathComponent
        if Self.holds(target, exactly: data) { return .unchanged }

        let temporary = resolved + "/.\(destination.lastPathComponent).\(UUID().uuidString).tmp"
        inFlight.insert(temporary)
        defer { inFlight.remove(temporary) }
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            unlink(temporary)
            throw Failure(description: "\(relativePath): cannot write (disk full or no permission)")
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "\(relativePath): cannot put in place: \(reason)")
        }
        return .written
    }

    /// Whether `path` is a regular file holding exactly `data` (size checked before reading).
    private static func holds(_ path: String, exactly data: Data) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              Int(info.st_size) == data.count else { return false }
        return FileManager.default.contents(atPath: path) == data
    }
}
