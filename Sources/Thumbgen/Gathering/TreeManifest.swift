import Crypto
import Foundation

/// The manifest a walk makes: one record per image found, size and format (in that order, so
/// that a source's rows come together and share its decode), the other column defaults as
/// cells. `thumbgen manifest` prints it; `thumbgen render DIR` runs it without the text in
/// between, numbered as the printed CSV would be, so that both give the same report rows.
public final class TreeManifest: RecordSource {
    /// How records are numbered: as the lines of the CSV (the header is line 1, a quoted
    /// newline makes a record span two), or as JSON Lines.
    public enum Numbering: Sendable {
        case csv, jsonLines
    }

    /// The columns every record may have, in the order they are printed.
    public let columns: [ManifestColumn]
    /// Relative sources are relative to the folder the command runs in.
    public let baseDirectory = FileManager.default.currentDirectoryPath
    /// Never called: a walk does not wait on a pipe.
    public var onWait: (() -> Void)?
    /// False: a walk makes a file's rows one after another.
    public var regroups: Bool { false }
    /// Never called: the walk's rows come in their own order.
    public var onRead: ((Int) -> Void)?
    /// Always 0.
    public var splitSources: Int { 0 }
    /// Whether to hash the text `thumbgen manifest` would print for the records made (`sha256`),
    /// so that a shard of `render DIR` names the same manifest as one of
    /// `thumbgen manifest DIR | thumbgen render -`.
    public var hashing = false {
        didSet {
            guard hashing, hasher == nil else { return }
            hasher = SHA256()
            hasher?.update(data: Data(writer.header.utf8))
        }
    }
    private var hasher: SHA256?

    /// The SHA-256, in hex, of the printed manifest's text so far; nil unless `hashing`.
    public var sha256: String? {
        hasher.map { ContentDigest.hex($0.finalize()) }
    }

    /// What went wrong in the walk so far (it went on past each).
    public var problems: [GatherError] { walker.problems }
    /// The symbolic links the walk met in folders and left alone so far.
    public var skippedLinks: Int { walker.skippedLinks }

    private let walker: SourceWalker
    private let sizes: [String?], formats: [String?]
    private let cells: [ManifestColumn: String]
    private let numbering: Numbering
    private let writer: ManifestWriter
    private var current: FoundSource?
    private var variant = 0
    private var line: Int

    /// The records for the images `walker` finds, one per size in `sizes` and format in
    /// `formats` (an empty list: the column is left out), with `defaults` (the other columns)
    /// as cells.
    public init(_ walker: SourceWalker, sizes: [String], formats: [String],
                defaults: [ManifestColumn: String], numbering: Numbering = .csv) {
        self.walker = walker
        self.sizes = sizes.isEmpty ? [nil] : sizes
        self.formats = formats.isEmpty ? [nil] : formats
        var cells = defaults
        cells[.src] = nil
        cells[.dir] = nil
        cells[.size] = nil
        cells[.format] = nil
        self.cells = cells
        self.numbering = numbering
        line = numbering == .csv ? 2 : 1
        let columns: [ManifestColumn] = [.src, .dir] + (sizes.isEmpty ? [] : [.size]) + (formats.isEmpty ? [] : [.format])
            + ManifestColumn.allCases.filter { cells[$0] != nil }
        self.columns = columns
        writer = ManifestWriter(columns: columns, jsonLines: numbering == .jsonLines)
    }

    /// The next record; nil once the walk is over. Never fails: the walk's problems are in
    /// `problems`.
    public func next() -> Result<ManifestRecord, RowError>? {
        if current == nil || variant == sizes.count * formats.count {
            guard let found = walker.next() else { return nil }
            current = found
            variant = 0
        }
        guard let current else { return nil }
        var values = cells
        values[.src] = Self.cell(forPath: current.path)
        // A name no cell can hold: one row, which fails naming it.
        if current.unnamable { variant = sizes.count * formats.count - 1 }
        if !current.directory.isEmpty { values[.dir] = current.directory }
        values[.size] = sizes[variant / formats.count]
        values[.format] = formats[variant % formats.count]
        variant += 1
        let record = ManifestRecord(line: line, values: values, invalidColumns: current.unnamable ? [.src] : [])
        if hashing { hasher?.update(data: Data(writer.line(record).utf8)) }
        switch numbering {
        case .jsonLines: line += 1
        case .csv: line += 1 + values.values.reduce(0) { $0 + $1.utf8.count { $0 == UInt8(ascii: "\n") } }
        }
        return .success(record)
    }

    /// The `src` cell for `path`: the path itself, unless it starts or ends with white space,
    /// which a cell loses (`RowParser` trims it): then its `file://` URL.
    static func cell(forPath path: String) -> String {
        guard let first = path.first, let last = path.last, first.isWhitespace || last.isWhitespace else { return path }
        return URL(fileURLWithPath: path).standardizedFileURL.absoluteString
    }
}
