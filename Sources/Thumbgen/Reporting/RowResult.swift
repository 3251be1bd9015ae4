/// What happened to one manifest row: the record the report, the summary and the exit status
/// are made from.
public struct RowResult: Sendable, Equatable, Codable {
    /// How a row ended.
    public enum Status: String, Sendable, Codable, CaseIterable {
        case written, unchanged, failed, cancelled
    }

    /// Milliseconds spent in each stage (absent for stages the row never reached).
    public struct StageTimes: Sendable, Equatable, Codable {
        public var decode: Double?
        public var render: Double?
        public var write: Double?
    }

    /// A failure's stable code and readable message.
    public struct Failure: Sendable, Equatable, Codable {
        public var code: ErrorCode
        public var message: String
    }

    public var row: Int
    public var id: String
    public var src: String
    public var status: Status
    /// The output's path relative to `--out`.
    public var out: String?
    public var width: Int?
    public var height: Int?
    public var bytes: Int?
    public var sha256: String?
    public var format: OutputFormat?
    public var error: Failure?
    public var ms: StageTimes?

    /// A row that failed before any work (bad row, unsupported source).
    static func failed(row: Int, id: String, src: String, _ failure: ThumbnailFailure) -> RowResult {
        RowResult(row: row, id: id, src: src, status: .failed,
                  error: Failure(code: failure.code, message: failure.message))
    }
}
