/// What the search for a row's `max_output_bytes` found when no quality fits: the smallest
/// encode it made, the limit, and the quality of that encode. It depends only on what the
/// output key covers (`mob` and `mq` are in the recipe), so the cache keeps it under that key
/// as the row's verdict, and the next run fails the row without encoding (docs/cache.md).
public struct OutputOverBudget: Sendable, Equatable, Codable {
    /// The bytes of the smallest encode tried.
    public var bytes: Int
    /// The row's `max_output_bytes`.
    public var limit: Int
    /// The quality of that encode (`--min-quality`, or the row's own when it was lower); nil
    /// for a format without a quality to lower.
    public var quality: Int?

    /// Makes a verdict.
    public init(bytes: Int, limit: Int, quality: Int?) {
        self.bytes = bytes
        self.limit = limit
        self.quality = quality
    }
}

extension OutputOverBudget: CustomStringConvertible {
    /// The failure's words after the source: the same whether the search just ran or the
    /// cache answered for it.
    public var description: String {
        let at = quality.map { " even at quality \($0) (--min-quality)" } ?? " (its format has no quality to lower)"
        return "the output is \(bytes) bytes\(at), over its max_output_bytes of \(limit)"
    }
}
