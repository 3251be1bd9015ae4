/// A file thumbgen put under an `--out` folder, as the record of placed files keeps it: enough
/// to tell later whether it is still the file thumbgen wrote, and which shard may remove it.
public struct PlacedFile: Sendable, Equatable, Codable {
    /// Its path relative to `--out`.
    public var path: String
    /// The `id` of the row that placed it last.
    public var row: String
    /// Its row's source identity (`SourceIdentity.of(src:)`): the shard it belongs to.
    public var source: String
    /// Its size in bytes, as placed.
    public var bytes: Int
    /// The SHA-256 of its bytes as placed, in hex (empty when a dry run did not know them).
    public var sha256: String

    /// A placed file's entry.
    public init(path: String, row: String, source: String, bytes: Int, sha256: String) {
        self.path = path; self.row = row; self.source = source; self.bytes = bytes; self.sha256 = sha256
    }

    // `out` as in a report row: scripts read pruned files with the same word.
    private enum CodingKeys: String, CodingKey {
        case path = "out", row = "id", source, bytes, sha256
    }
}
