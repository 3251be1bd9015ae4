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

    /// The file names (last path components) of the local files the database holds rows for,
    /// sorted.
    func fileRows() -> [String] {
        guard let cache = ThumbnailCache(lookingAt: root) else { return [] }
        var names: [String] = []
        cache.index.query("SELECT path FROM files") { row in
            names.append(URL(fileURLWithPath: row.text(0) ?? "").lastPathComponent)
        }
        return names.sorted()
    }

    /// The rows `sql` gives from the cache's database (read only), each its columns as text
    /// joined by spaces (a blob as hex: ask for `hex(column)`).
    func texts(_ sql: String) -> [String] {
        guard let cache = ThumbnailCache(lookingAt: root) else { return [] }
        var rows: [String] = []
        cache.index.query(sql) { row in
            rows.append((0..<Int32(8)).compactMap { row.text($0) }.joined(separator: " "))
        }
        return rows
    }

    /// Runs `sql` on the cache's database (to age or damage rows), as another process would.
    func execute(_ sql: String, _ values: [IndexDatabase.Value] = []) throws {
        let database = IndexDatabase(path: root.path + "/index.db", readOnly: false) { _ in }
        defer { database.close() }
        guard database.execute(sql, values) else { throw FixtureError("cannot run \(sql)") }
    }

    /// The paths of every entry of `kind` kept as files (`blobs`, `outputs`).
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
