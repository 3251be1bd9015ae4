/// What a sharded run's report says of its shard (`"shard"` at the top of the report), so
/// that `thumbgen report merge` can check that the reports it joins fit together.
public struct ReportShard: Sendable, Codable, Equatable {
    /// This shard's number, from 0.
    public var index: Int
    /// How many shards the manifest was split into.
    public var count: Int
    /// The SHA-256 of the manifest's bytes, in hex.
    public var manifestSHA256: String

    /// Describes shard `index` of `count` over the manifest whose bytes hash to `manifestSHA256`.
    public init(index: Int, count: Int, manifestSHA256: String) {
        self.index = index; self.count = count; self.manifestSHA256 = manifestSHA256
    }

    private enum CodingKeys: String, CodingKey {
        case index, count
        case manifestSHA256 = "manifest_sha256"
    }
}

/// What a merged report says of the shards it joins (`"merged"` at the top of the report).
public struct ReportMerged: Sendable, Codable, Equatable {
    /// How many shard reports were joined: every shard of the manifest.
    public var count: Int
    /// The SHA-256 of the manifest's bytes, in hex.
    public var manifestSHA256: String

    /// Describes the merge of `count` shards of the manifest hashing to `manifestSHA256`.
    public init(count: Int, manifestSHA256: String) {
        self.count = count; self.manifestSHA256 = manifestSHA256
    }

    private enum CodingKeys: String, CodingKey {
        case count
        case manifestSHA256 = "manifest_sha256"
    }
}
