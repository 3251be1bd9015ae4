import Foundation
import Thumbgen

/// Where the tests find the package, the shared corpora and the `thumbgen` binary.
enum TestPaths {
    /// The package root: three levels above this file (`Tests/ThumbgenTests/Support`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/corpora` beside the package root, if it is there.
    static let corpora: URL? = {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
              isDirectory.boolValue else { return nil }
        return url.standardizedFileURL
    }()

    /// Whether the shared corpora are present (tests that need them are skipped otherwise).
    static var hasCorpora: Bool { corpora != nil }

    /// The `thumbgen` binary: `$THUMBGEN_BINARY` if set; else the one `swift test` builds into
    /// the folder of the running test executable; else the usual scratch folders.
    static let thumbgen: URL? = {
        // Every test that starts a child asks for this first. A child that dies while a test
        // writes to its standard input must fail that test with EPIPE, not kill the whole
        // test process with SIGPIPE (seen in CI: every suite lost at once).
        signal(SIGPIPE, SIG_IGN)
        if let override = ProcessInfo.processInfo.environment["THUMBGEN_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(packageRoot.appendingPathComponent(".build-tests/debug"))
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        return candidates
            .map { $0.appendingPathComponent("thumbgen").standardizedFileURL }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()
}

/// A fresh folder under the system's temporary folder, removed when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    /// The folder.
    let url: URL

    /// Creates `thumbgen-tests-<label>-<uuid>`.
    init(_ label: String = "t") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("thumbgen-tests-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the folder.
    func file(_ relative: String) -> URL { url.appendingPathComponent(relative) }

    /// Writes `text` to `relative` (UTF-8) and returns its URL.
    @discardableResult
    func write(_ text: String, to relative: String) throws -> URL {
        try write(Data(text.utf8), to: relative)
    }

    /// Writes `data` to `relative`, creating folders, and returns its URL.
    @discardableResult
    func write(_ data: Data, to relative: String) throws -> URL {
        let target = file(relative)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target)
        return target
    }

    /// Every file under `relative` (hidden ones included), as paths relative to it, sorted.
    func files(under relative: String) -> [String] {
        Self.files(under: file(relative))
    }

    /// Every regular file under `root` (hidden ones included), relative to it, sorted; but
    /// the record of placed files a run without a cache keeps in `--out` (`PlacedRecordFile`),
    /// which is thumbgen's own and no output (`PruneTests` looks at it directly).
    static func files(under root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [String] = []
        let prefix = root.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
            else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            found.append(path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path)
        }
        return found.filter { $0 != PlacedRecordFile.name }.sorted()
    }
}

/// Builds CSV manifests, quoting every field that needs it (RFC 4180).
enum CSV {
    /// One field, quoted when it holds a comma, quote, CR or LF.
    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
        else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A whole manifest: the header, then one line per row, LF line ends.
    static func manifest(_ header: [String], _ rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n") + "\n"
    }
}
