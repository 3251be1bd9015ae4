/// One of N parts of a manifest (`--shard I/N`, I counted from 0 as Kubernetes counts): the
/// rows whose source identity hashes to I modulo N (`SourceIdentity`).
///
/// Every row of a manifest is in exactly one shard, and the rows naming one source are in the
/// same shard, so that they still share one decode. The assignment depends on the `src` cell
/// and N alone: N processes on N machines, each given the same manifest and its own I, split
/// it between them without talking to each other.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// This shard's number, from 0 to `count` - 1.
    public let index: Int
    /// How many shards the manifest is split into.
    public let count: Int

    /// Shard `index` of `count`; `what` names where the numbers came from, for the error.
    public init(index: Int, count: Int, from what: String = "--shard") throws(ShardError) {
        guard count >= 1 else { throw .outOfRange(what, "the count is \(count); it must be at least 1") }
        guard (0..<count).contains(index) else {
            throw .outOfRange(what, "the index is \(index); with \(count) shards it must be 0 to \(count - 1)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Self.number(parts[0]), let count = Self.number(parts[1]) else {
            throw .malformed(text)
        }
        try self.init(index: index, count: count)
    }

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }

    /// The shard, among `count`, of the row whose `src` cell is `src` (nil: none was read).
    public static func index(ofSource src: String?, count: Int) -> Int {
        Int(SourceIdentity.hash(SourceIdentity.of(src: src)) % UInt64(count))
    }

    /// Whether the row whose `src` cell is `src` is in this shard: the one decision a sharded
    /// run makes about a row before reading it further.
    public func owns(src: String?) -> Bool {
        count == 1 || Self.index(ofSource: src, count: count) == index
    }

    /// Whether the record (or the record that did not even split into cells) is in this shard.
    public func owns(_ entry: Result<ManifestRecord, RowError>) -> Bool {
        switch entry {
        case .success(let record): owns(src: record.values[.src])
        case .failure: owns(src: nil)
        }
    }

    /// A decimal number of plain ASCII digits (no sign, no space), as environment variables
    /// and `I/N` hold them.
    static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }
}

/// Why `--shard` cannot be used as given.
public enum ShardError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `I/N`, `auto` or `auto/N`.
    case malformed(String)
    /// The numbers named by the first value are out of range; the second says how.
    case outOfRange(String, String)
    /// `--shard auto` found no engine's variables.
    case noEngine
    /// `--shard auto` found more than one engine's variables.
    case ambiguous([String])
    /// An environment variable is missing or not a number (its name, and what is wrong).
    case badVariable(String, String)
    /// The engine gives the index but not the count: `--shard auto/N` must say it.
    case countNeeded(String)

    /// The message, naming the option or variable at fault and what to write instead.
    public var description: String {
        switch self {
        case .malformed(let text):
            "--shard '\(text)': expected I/N (I from 0 to N-1), auto or auto/N"
        case .outOfRange(let what, let reason):
            "\(what): \(reason)"
        case .noEngine:
            "--shard auto: none of JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_ID (Slurm) or "
                + "AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) is set; give --shard I/N"
        case .ambiguous(let names):
            "--shard auto: both \(names.joined(separator: " and ")) are set; give --shard I/N"
        case .badVariable(let name, let reason):
            "--shard auto: \(name) \(reason)"
        case .countNeeded(let name):
            "--shard auto: \(name) gives this shard's index but not how many there are; "
                + "write --shard auto/N, N being the number of shards"
        }
    }
}

extension Shard {
    /// Whether a source of identity `identity` (`SourceIdentity.of(src:)`, as the record of
    /// placed files keeps it) is in this shard: `--prune` removes only its own shard's files.
    public func owns(identity: String) -> Bool {
        count == 1 || Int(SourceIdentity.hash(identity) % UInt64(count)) == index
    }
}
