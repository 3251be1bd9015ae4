/// What happened to one manifest row: the record the report, the summary and the exit status
/// are made from.
public struct RowResult: Sendable, Equatable, Codable {
    /// How a row ended.
    public enum Status: String, Sendable, Codable, CaseIterable {
        case written, unchanged, failed, cancelled
        /// `--drop-larger`: not written, no smaller than its fallback (`fallback` says which).
        case dropped
        /// `--dry-run`: nothing was done; `plan` says what would be.
        case planned
    }

    /// Whether the output came from the cache (docs/report.md: the `cache` field).
    public enum CacheOutcome: String, Sendable, Codable, CaseIterable {
        /// Served from the cache; its source was known unchanged without asking a server.
        case hit
        /// Rendered in this run (and stored in the cache).
        case miss
        /// Served from the cache after the server confirmed the source unchanged (`304`).
        case revalidated
    }

    /// What `thumbgen warm` did for a row, the most costly step counting.
    public enum WarmOutcome: String, Sendable, Codable, CaseIterable {
        /// Source and output were cached and fresh: nothing to do.
        case fresh
        /// The server confirmed the source unchanged (`304`); the output was cached.
        case revalidated
        /// The source was downloaded in full; the output was cached (same bytes as before).
        case fetched
        /// The output was rendered into the cache.
        case rendered
        /// The row failed.
        case failed
    }

    /// Milliseconds spent in each stage (absent for stages the row never reached).
    public struct StageTimes: Sendable, Equatable, Codable {
        /// From the source's decode starting to this row's render starting.
        public var download: Double?
        /// From the source's decode starting to this row's render starting.
        public var decode: Double?
        /// Crop, scale and encode.
        public var render: Double?
        /// Naming and writing the file.
        public var write: Double?
    }

    /// How a URL source's download went.
    public struct HTTPInfo: Sendable, Equatable, Codable {
        /// The final HTTP status (0 when no response arrived).
        public var status: Int
        /// Body bytes received.
        public var bytes: Int64
        /// Requests made, retries included.
        public var attempts: Int
    }

    /// A failure's stable code and readable message.
    public struct Failure: Sendable, Equatable, Codable {
        /// The stable code scripts match on.
        public var code: ErrorCode
        /// A readable message that names the source or the column.
        public var message: String
    }

    /// The record's line in the manifest.
    public var row: Int
    /// The `id` column, else the row number.
    public var id: String
    /// The `src` cell as written.
    public var src: String
    /// How the row ended.
    public var status: Status
    /// The output's path relative to `--out`.
    public var out: String?
    /// The output's width in pixels.
    public var width: Int?
    /// The output's height in pixels.
    public var height: Int?
    /// The output's size in bytes.
    public var bytes: Int?
    /// The SHA-256 of the output's bytes, in hex.
    public var sha256: String?
    /// The output's format.
    public var format: OutputFormat?
    /// Why the row failed or was cancelled.
    public var error: Failure?
    /// Milliseconds per stage.
    public var ms: StageTimes?
    /// The download of a URL source.
    public var http: HTTPInfo?
    /// Whether the output came from the cache (absent with `--no-cache` and for failed rows,
    /// but for one the cache's verdict failed: an output that cannot fit `max_output_bytes`).
    public var cache: CacheOutcome?
    /// The SHA-256 of the source's bytes, when the cache learned it.
    public var sourceSHA256: String?
    /// What `thumbgen warm` did (warm runs only).
    public var warm: WarmOutcome?
    /// What the source was, when it was opened (absent for rows the cache served).
    public var source: SourceInfo?
    /// What a run would do for the row (`--dry-run` only).
    public var plan: Plan?
    /// The part of the upright source the output shows, in source pixels, when not all of it.
    public var crop: CropBox?
    /// What a `dropped` row was weighed against: its source's fallback of the same width.
    public var fallback: Fallback?

    /// The output a `dropped` row was no smaller than.
    public struct Fallback: Sendable, Equatable, Codable {
        /// Its format (JPEG or PNG).
        public var format: OutputFormat
        /// Its size in bytes.
        public var bytes: Int
    }

    /// The paths a planned row's output may take when `--dry-run` cannot name it (a render
    /// would tell): `--dry-run --prune` keeps files it may write off its list. Not reported.
    var outPattern: OutputPathPattern?

    /// The placeholder its source's page can show, on the row whose output it was made from
    /// (the smallest its render made), in the kinds the run asked for (`--placeholders`).
    public var placeholder: PlaceholderFields?

    /// What `--dry-run` found a run would do for a row.
    public enum Plan: String, Sendable, Codable, CaseIterable {
        /// The file under `--out` already holds the cached output: nothing to do.
        case keep
        /// Copy the output from the cache.
        case reuse
        /// Decode and render (the source is local, or fetched and fresh in the cache).
        case render
        /// Fetch or revalidate the source, then render unless the cache has the output.
        case fetch
    }

    /// A source's size in bytes and what its header said.
    public struct SourceInfo: Sendable, Equatable, Codable {
        /// Bytes of the source file (as downloaded, for a URL).
        public var bytes: Int64
        /// Width and height of one frame, upright.
        public var width: Int, height: Int
        /// The loader's format name: `jpeg`, `png`, `webp`, `gif`, `tiff`, `heif`, `jxl`, ...
        public var format: String
        /// Frames in the file.
        public var frames: Int

        /// Makes a description of a source.
        public init(bytes: Int64, width: Int, height: Int, format: String, frames: Int) {
            self.bytes = bytes; self.width = width; self.height = height
            self.format = format; self.frames = frames
        }
    }

    private enum CodingKeys: String, CodingKey {
        case row, id, src, status, out, width, height, bytes, sha256, format, error, ms, http, cache
        case sourceSHA256 = "source_sha256"
        case warm, source, plan, placeholder, fallback, crop
    }

    /// A row that ended with `failure`, at whatever stage: `cancelled` when the failure is a
    /// cancel, else `failed`.
    static func failed(row: Int, id: String, src: String, _ failure: ThumbnailFailure) -> RowResult {
        RowResult(row: row, id: id, src: src, status: failure.code == .cancelled ? .cancelled : .failed,
                  error: Failure(code: failure.code, message: failure.message))
    }
}
