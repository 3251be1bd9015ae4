import Foundation
import Synchronization

/// The output keys recently made for each source, with the text each is the digest of, so
/// that `thumbgen explain` can say which part of a row's key changed since its output was
/// last made (the recipe, the source's bytes, libvips). The identify stage notes the keys its
/// jobs are about to render, once per source: the `recipes` table of the cache's database, by
/// the source's identity (`file PATH` or `url URL`), its newest `limit` keys.
///
/// It only informs: a history pruned or lost costs `explain` its "what changed" line, never a
/// wrong output. `decode` reads the records of the cache layout before the database (imported
/// once, `LegacyIndexImport`).
struct RecipeHistory: Sendable {
    let index: IndexDatabase
    /// Notes not written yet: they are written together, as uses are (`UseLog`), every
    /// `batch` sources or `UseLog.interval` seconds, and at the end of the run.
    private let pending = Pending()
    /// Keys kept per source: enough for the sizes a web build makes of one image.
    static let limit = 32
    /// Sources noted before the notes are written whatever the time.
    static let batch = 256

    /// A history in `index`.
    init(index: IndexDatabase) {
        self.index = index
    }

    private final class Pending: Sendable {
        let notes = Mutex((notes: [(identity: String, keys: [OutputKey], at: Double)](),
                           since: Date().timeIntervalSince1970))
    }

    /// The identity a source's record is kept under.
    static func identity(of source: SourceLocation) -> String {
        switch source {
        case .file(let path): "file " + path
        case .url(let url): "url " + url.absoluteString
        }
    }

    /// The identity `request`'s source is kept under: a URL's `SourceKey` when it has one.
    static func identity(of request: ThumbnailRequest) -> String {
        guard let key = request.sourceKey else { return identity(of: request.source) }
        return "url " + key.identity
    }

    /// Notes that outputs of `source` are made under `keys` (a web build makes several sizes of
    /// each image); the newest `limit` stay. Written with other sources' notes (`flush`).
    func note(_ keys: [OutputKey], for request: ThumbnailRequest) {
        guard !keys.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        let due = pending.notes.withLock { state in
            state.notes.append((Self.identity(of: request), keys, now))
            return state.notes.count >= Self.batch || now - state.since >= UseLog.interval
        }
        if due { flush() }
    }

    /// Writes the notes gathered so far, in one transaction.
    func flush() {
        let notes = pending.notes.withLock { state in
            defer { state = ([], Date().timeIntervalSince1970) }
            return state.notes
        }
        guard !notes.isEmpty else { return }
        index.transaction { transaction in
            for (identity, keys, now) in notes {
                Self.write(keys, for: identity, at: now, into: &transaction)
            }
        }
    }

    private static func write(_ keys: [OutputKey], for identity: String, at now: Double,
                              into transaction: inout IndexDatabase.Transaction) {
        for (offset, key) in keys.enumerated() {
            // A key on record keeps its place; a new one is the newest (in the rows' order).
            transaction.execute("""
                INSERT INTO recipes (source, key, recipe, noted, last_used) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (source, key) DO NOTHING
                """, [.text(identity), .text(key.digest), .text(key.text),
                      .real(now + Double(offset) * 1e-6), .real(now)])
        }
        transaction.execute("UPDATE recipes SET last_used = ? WHERE source = ?", [.real(now), .text(identity)])
        transaction.execute("""
            DELETE FROM recipes WHERE source = ?1 AND key NOT IN
              (SELECT key FROM recipes WHERE source = ?1 ORDER BY noted DESC LIMIT ?2)
            """, [.text(identity), .integer(Int64(limit))])
    }

    /// The keys on record for `source`, oldest first (this process's notes written first).
    func keys(for request: ThumbnailRequest) -> [OutputKey] {
        keys(identity: Self.identity(of: request))
    }

    /// The keys noted for `source` (a URL by its own text), oldest first.
    func keys(for source: SourceLocation) -> [OutputKey] {
        keys(identity: Self.identity(of: source))
    }

    private func keys(identity: String) -> [OutputKey] {
        flush()
        var keys: [OutputKey] = []
        index.query("SELECT key, recipe FROM recipes WHERE source = ? ORDER BY noted",
                    [.text(identity)]) { row in
            guard let digest = row.text(0), let text = row.text(1), let key = OutputKey(storedText: text),
                  key.digest == digest else { return }
            keys.append(key)
        }
        return keys
    }

    /// The identity and keys `entry` holds, or nil when it is not a history record.
    static func decode(_ entry: CacheRecord) -> (source: String, keys: [OutputKey])? {
        guard let source = entry["source"] else { return nil }
        var keys: [OutputKey] = []
        for field in entry.fields where field.name != "source" {
            guard ContentDigest.isValid(field.name), let key = OutputKey(storedText: field.value),
                  key.digest == field.name else { return nil }
            keys.append(key)
        }
        return (source, keys)
    }
}
