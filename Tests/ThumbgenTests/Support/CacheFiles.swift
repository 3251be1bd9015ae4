import Foundation
@testable import Thumbgen

/// A cache directory as the tests look into it: its entries by kind, and ways to damage them.
struct CacheFiles {
    let root: URL

    /// The database's files: `index.db`, and SQLite's `-wal` and `-shm` beside it while a
    /// process has it open.
    static let databaseFiles: Set<String> = ["index.db", "index.db-wal", "index.db-shm"]

    /// The URLs the cache's database holds records for, sorted.
    func urls() -> [String] {
        guard let cache = ThumbnailCache(lookingAt: root) else { return [] }
        var urls: [String] = []
        cache.index.query("SELECT url FROM urls ORDER BY url") { row in urls.append(row.text(0) ?? "") }
        return urls
    }

    /// The paths of every entry of `kind` (`blobs`, `outputs`, `urls`, `files`).
    func entries(_ kind: String) -> [URL] {
        let folder = root.appendingPathComponent("v1/\(kind)")
        return TemporaryDirectory.files(under: folder).map { folder.appendingPathComponent($0) }
    }

    /// The blob named `digest`.
    func blob(_ digest: String) -> URL {
        root.appendingPathComponent("v1/blobs/\(digest.prefix(2))/\(digest)")
    }

    /// Flips one bit of the byte at `offset` (from the end when negative) of `file`, in place.
    static func flipByte(of file: URL, at offset: Int = -1) throws {
        var bytes = try Data(contentsOf: file)
        let index = offset >= 0 ? offset : bytes.count + offset
        bytes[index] ^= 0x01
        try bytes.write(to: file)
    }

    /// Every file under `folder` with its bytes, for comparing two output trees.
    static func tree(_ folder: URL) throws -> [String: Data] {
        var tree: [String: Data] = [:]
        for name in TemporaryDirectory.files(under: folder) {
            tree[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return tree
    }
}
