import Foundation
import Synchronization

/// The output keys recently made for each source, with the text each is the digest of, so
/// that `thumbgen explain` can say which part of a row's key changed since its output was
/// last made (the recipe, the source's bytes, libvips). The identify stage notes the keys its
/// jobs are about to render, once per source. One record per source, named by the
/// SHA-256 of the source's identity (`file PATH` or `url URL`), holding its newest `limit`
/// keys.
///
/// It only informs: a record lost to a concurrent writer in another process, or pruned, costs
/// `explain` its "what changed" line, never a wrong output.
struct RecipeHistory: Sendable {
    let layout: CacheLayout

    /// Keys kept per source: enough for the sizes a web build makes of one image.
    static let limit = 32

    /// Read-modify-write of one record at a time in this process, so that the outputs of one
    /// source rendered at once do not drop one another's keys.
    private static let updating = Mutex(())

    /// The identity a source's record is kept under.
    static func identity(of source: SourceLocation) -> String {
        switch source {
        case .file(let path): "file " + path
        case .url(let url): "url " + url.absoluteString
        }
    }

    /// The entry name of `source`'s record.
    static func name(for source: SourceLocation) -> String { ContentDigest.of(text: identity(of: source)) }

    /// Notes that outputs of `source` are made under `keys` (one write for all of a source's
    /// rows: a web build makes several sizes of each image).
    func note(_ keys: [OutputKey], for source: SourceLocation) {
        guard !keys.isEmpty else { return }
        let path = layout.path(.recipes, Self.name(for: source))
        Self.updating.withLock { _ in
            var entry = layout.readMarkingUsed(path).flatMap { CacheRecord(decoding: $0.bytes) }
                .flatMap { Self.decode($0)?.source == Self.identity(of: source) ? $0 : nil }
                ?? CacheRecord()
            let new = keys.filter { entry[$0.digest] != $0.text }
            guard !new.isEmpty || entry["source"] == nil else { return }
            if entry["source"] == nil { entry["source"] = Self.identity(of: source) }
            for key in new { entry[key.digest] = key.text }  // moved to the end: the newest
            while entry.fields.count > Self.limit + 1 { entry[entry.fields[1].name] = nil }
            layout.write(entry.encoded, to: path)
        }
    }

    /// The keys on record for `source`, oldest first.
    func keys(for source: SourceLocation) -> [OutputKey] {
        let path = layout.path(.recipes, Self.name(for: source))
        guard let entry = layout.read(path).flatMap({ CacheRecord(decoding: $0.bytes) }),
              let decoded = Self.decode(entry), decoded.source == Self.identity(of: source) else { return [] }
        return decoded.keys
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
