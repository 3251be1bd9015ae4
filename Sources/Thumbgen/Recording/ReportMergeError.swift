/// Why `thumbgen report merge` refuses its reports; each names the files at fault.
public enum ReportMergeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file cannot be opened or read.
    case unreadable(String)
    /// The file is not a report as thumbgen writes it; the second value says what is wrong.
    case notAReport(String, String)
    /// The report has no `shard`: it is not the report of a `--shard` run.
    case notAShard(String)
    /// Two reports are of different manifests (their manifests' SHA-256 differ).
    case differentManifests(String, String)
    /// Two reports split the manifest into different numbers of shards.
    case differentCounts(String, Int, String, Int)
    /// Two reports are of the same shard.
    case sameShard(Int, String, String)
    /// Shards of the manifest have no report among those given (their numbers, and how many).
    case missingShards([Int], Int)
    /// One report is of a dry run or `warm`, another is not.
    case differentRuns(String, String, String, String)
    /// A row is in two reports (or twice in one).
    case rowTwice(Int, String, String)
    /// The merged report or page cannot be written.
    case unwritable(String)

    /// The message.
    public var description: String {
        switch self {
        case .unreadable(let path):
            "\(path): cannot read the report"
        case .notAReport(let path, let reason):
            "\(path): not a thumbgen report: \(reason)"
        case .notAShard(let path):
            "\(path): not a shard's report (it has no \"shard\"; run with --shard I/N)"
        case .differentManifests(let one, let other):
            "\(one) and \(other) are reports of different manifests (their manifest_sha256 differ)"
        case .differentCounts(let one, let n, let other, let m):
            "\(one) is a shard of \(n) and \(other) a shard of \(m): they are different splits"
        case .sameShard(let index, let one, let other):
            "\(one) and \(other) are both reports of shard \(index)"
        case .missingShards(let indices, let count):
            "no report of shard \(indices.map(String.init).joined(separator: ", ")) of \(count): "
                + "every shard's report is needed"
        case .differentRuns(let one, let kind, let other, let otherKind):
            "\(one) is the report of \(kind) and \(other) of \(otherKind)"
        case .rowTwice(let row, let one, let other):
            "row \(row) is in both \(one) and \(other)"
        case .unwritable(let path):
            "\(path): cannot write it"
        }
    }
}
