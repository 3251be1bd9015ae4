import Foundation
import Synchronization

/// Turns a manifest record into a validated `ThumbnailRequest`, filling empty cells from the
/// command line's defaults (the row wins over the flag).
public struct RowParser: Sendable {
    /// Values used where a row leaves a column empty, as the text a cell would hold.
    public var defaults: [ManifestColumn: String] {
        didSet { defaultCells = Self.cells(defaults) }
    }
    /// `defaults` by `ManifestColumn.ordinal`: a row looks its columns up by index, not by
    /// hashing (hashing them was a tenth of a warm row's parsing).
    private var defaultCells: [String?]
    /// The folder relative `src` paths are resolved against (the manifest's folder).
    public var baseDirectory: String
    /// Encoder settings given to every row (run-wide flags, not columns).
    public var encoding = EncodingOptions()
    /// The query parameters dropped from a URL source's identity in the cache
    /// (`--ignore-query`); nil keeps every URL whole.
    public var queryFilter: QueryFilter?
    /// The `out` templates found valid: a manifest uses one, or one per size and folder, and
    /// checking one again cost as much as the rest of the row's parsing.
    private let validTemplates = Recent(KnownValues<String, Bool>(capacity: 4096))
    /// The recipes lately parsed, by their cells (`RowParser+Spec.swift`).
    private let recentSpecs = Recent(RecentValues<SpecCells, ThumbnailSpec>(capacity: 32))
    /// The last `src` resolved, and where it led: rows of one source (its sizes) are usually
    /// consecutive, and resolving it again was a tenth of a warm row's parsing. Keyed by the
    /// base folder too: copies of a parser share the box, and may have other folders.
    private let lastSource = Recent<(text: String, base: String, location: SourceLocation)?>(nil)

    /// A box for a memo, shared by a parser's copies: a struct cannot hold a `Mutex` itself.
    final class Recent<Memo: Sendable>: Sendable {
        private let memo: Mutex<Memo>
        init(_ memo: Memo) { self.memo = Mutex(memo) }
        func withLock<T>(_ body: (inout Memo) -> T) -> T { memo.withLock { body(&$0) } }
    }

    /// Makes a parser with the given defaults and base folder.
    public init(defaults: [ManifestColumn: String] = [:], baseDirectory: String) {
        self.defaults = defaults
        defaultCells = Self.cells(defaults)
        self.baseDirectory = baseDirectory
    }

    /// Fails a record with a cell that is not UTF-8 or is longer than its column holds, naming
    /// the column.
    static func checkCells(_ record: ManifestRecord) throws(RowError) {
        if let column = record.invalidColumns.first {
            // A URL's login is shown nowhere, this error included.
            let value = record.values[column].map { column == .src ? SourceLogin.split($0).shown : $0 }
            throw RowError(row: record.line, column: column.rawValue, value: value,
                           reason: "is not UTF-8 (the bytes that are not are shown as \\xNN); "
                               + "save the manifest as UTF-8")
        }
        if let preset = record.values[.preset] {
            // Expanded before parsing where a thumbgen.toml defines it (`PresetExpansion`).
            throw RowError(row: record.line, column: ManifestColumn.preset.rawValue, value: preset,
                           reason: "names no preset: presets are [presets.NAME] tables of a thumbgen.toml, and none defines it")
        }
        var longest: (column: ManifestColumn, bytes: Int)?
        for (column, text) in record.values where text.utf8.count > column.maximumBytes {
            if longest.map({ column.ordinal < $0.column.ordinal }) ?? true { longest = (column, text.utf8.count) }
        }
        if let (column, bytes) = longest {
            throw RowError(row: record.line, column: column.rawValue,
                           reason: "holds \(bytes) bytes; a \(column.rawValue) cell holds at most \(column.maximumBytes)")
        }
    }

    /// `values` as an array indexed by `ManifestColumn.ordinal`.
    private static func cells(_ values: [ManifestColumn: String]) -> [String?] {
        var cells = [String?](repeating: nil, count: ManifestColumn.ordinalCount)
        for (column, value) in values { cells[column.ordinal] = value }
        return cells
    }

    /// Parses one record; the error names the row, the column and the value at fault.
    public func parse(_ record: ManifestRecord) -> Result<ThumbnailRequest, RowError> {
        do {
            return .success(try request(from: record))
        } catch {
            return .failure(error)
        }
    }

    private func request(from record: ManifestRecord) throws(RowError) -> ThumbnailRequest {
        let row = record.line
        try Self.checkCells(record)
        // The local functions below capture this, not `self`: `fail` is passed on as a
        // closure, and capturing `self` copied the whole parser for every row.
        let defaults = defaultCells
        let cells = Self.cells(record.values)
        // The size columns go together: a row that sets any of them ignores the flag's size.
        let rowSetsSize = cells[ManifestColumn.width.ordinal] != nil || cells[ManifestColumn.height.ordinal] != nil
            || cells[ManifestColumn.size.ordinal] != nil
        func value(_ column: ManifestColumn) -> String? {
            if let v = cells[column.ordinal] { return v }
            if rowSetsSize, column == .width || column == .height || column == .size { return nil }
            return defaults[column.ordinal]
        }
        func fail(_ column: ManifestColumn, _ reason: String) -> RowError {
            RowError(row: row, column: column.rawValue, value: value(column), reason: reason)
        }

        guard let cellText = value(.src)?.trimmingWhitespace, !cellText.isEmpty else {
            throw RowError(row: row, column: "src", reason: "is missing; every row needs a source")
        }
        // A URL's user info goes into the request's login, and nowhere else.
        let (srcText, login) = SourceLogin.split(cellText)
        let source: SourceLocation
        if let known = lastSource.withLock({ $0?.text == srcText && $0?.base == baseDirectory ? $0?.location : nil }) {
            source = known
        } else {
            source = try SourceResolver(baseDirectory: baseDirectory).resolve(srcText, row: row)
            lastSource.withLock { $0 = (srcText, baseDirectory, source) }
        }

        let sourceKey = try Self.sourceKey(of: source, cell: value(.sourceKey), filter: queryFilter, fail: fail)

        // The recipe's cells are the same for every source at one size: a run's rows cycle
        // through a few recipes, and parsing them again was a quarter of a warm row's reading.
        let specCells = SpecCells(cells: Self.specColumns.map { value($0) }, encoding: encoding)
        let spec: ThumbnailSpec
        if let known = recentSpecs.withLock({ $0.value(for: specCells) }) {
            spec = known
        } else {
            spec = try Self.spec(encoding: specCells.encoding, value: value, fail: fail)
            recentSpecs.withLock { $0.note(specCells, spec) }
        }
        var maxAge = 0
        if let text = value(.maxAge) {
            guard let seconds = Int(text.trimmingWhitespace) else {
                throw fail(.maxAge, "must be a whole number of seconds")
            }
            maxAge = seconds
        }
        // A row with a `dir` (a walked tree's) mirrors its folder by default.
        var outTemplate = value(.out)
            ?? (value(.dir) == nil ? ThumbnailRequest.defaultOutTemplate : ThumbnailRequest.treeOutTemplate)
        if outTemplate.containsBytes("{dir}") {
            do {
                outTemplate = try OutputPathTemplate.filling(directory: value(.dir) ?? "", in: outTemplate)
            } catch {
                throw fail(.dir, error.reason)
            }
        }
        if validTemplates.withLock({ $0.value(for: outTemplate) }) == nil {
            do {
                try OutputPathTemplate.validate(outTemplate)
            } catch {
                throw fail(.out, error.reason)
            }
            validTemplates.withLock { $0.note(outTemplate, true) }
        }
        return ThumbnailRequest(
            row: row, id: value(.id) ?? String(row), sourceText: srcText, source: source,
            outTemplate: outTemplate, spec: spec,
            priority: try Self.choice(.priority, Priority.self, value: value, fail: fail) ?? .normal, maxAge: maxAge, sourceKey: sourceKey,
            login: login)
    }

    /// A URL source's name in the cache: the `source_key` cell, else the URL less the
    /// parameters `filter` drops; nil when it is the URL itself, and for a local file (whose
    /// identity is its bytes: a `source_key` there changes nothing).
    private static func sourceKey(of source: SourceLocation, cell: String?, filter: QueryFilter?,
                                  fail: (ManifestColumn, String) -> RowError) throws(RowError) -> SourceKey? {
        guard case .url(let url) = source else { return nil }
        if let cell {
            let key = cell.trimmingWhitespace
            guard !key.isEmpty else { return nil }
            guard key.utf8.count <= 2048, !key.contains(where: { $0.isNewline }) else {
                throw fail(.sourceKey, "must be one line of at most 2048 bytes")
            }
            return SourceKey(identity: key, fromColumn: true)
        }
        guard let filter, let (identity, dropped) = filter.identity(of: url.absoluteString) else { return nil }
        return SourceKey(identity: identity, dropped: dropped, fromColumn: false)
    }
}
