/// A manifest whose rows may name a preset (a `preset` cell): each such row gets the preset's
/// settings in the cells it leaves empty, and loses its `preset` cell, before it is parsed. A
/// row's own cells win over its preset, its preset over the run's flags (the parser's
/// defaults), so that a preset row renders exactly what the same row with those cells written
/// out would, to the byte.
public final class PresetExpansion: RecordSource {
    private let inner: any RecordSource
    /// Each preset's cells, by name.
    private let presets: [String: [ManifestColumn: String]]
    /// Each preset's settings that are no column (a `site` setting such as `widths`): a row
    /// naming the preset fails, naming them.
    private let strays: [String: [String]]

    /// `inner`'s records, expanded with `presets` (settings by name, as flags' names or
    /// columns' spellings).
    public init(_ inner: any RecordSource, presets: [String: [(key: String, value: String)]]) {
        self.inner = inner
        var cells: [String: [ManifestColumn: String]] = [:]
        var strays: [String: [String]] = [:]
        for (name, settings) in presets {
            for (key, value) in settings {
                // `out` is `--out`, the run's folder; a row's `out` cell is `--out-template`'s.
                let header = key == "out-template" || key == "out_template" ? "out"
                    : key == "out" ? "" : key.replacingOccurrences(of: "-", with: "_")
                if let column = ManifestColumn(header: header), column != .preset {
                    cells[name, default: [:]][column] = value
                } else {
                    strays[name, default: []].append(key)
                }
            }
        }
        self.presets = cells
        self.strays = strays
    }

    public var baseDirectory: String { inner.baseDirectory }
    public var onWait: (() -> Void)? {
        get { inner.onWait }
        set { inner.onWait = newValue }
    }
    public var sha256: String? { inner.sha256 }
    public var regroups: Bool { inner.regroups }
    public var onRead: ((Int) -> Void)? {
        get { inner.onRead }
        set { inner.onRead = newValue }
    }
    public var splitSources: Int { inner.splitSources }

    public func next() throws(ManifestError) -> Result<ManifestRecord, RowError>? {
        guard let next = try inner.next() else { return nil }
        guard case .success(let record) = next else { return next }
        return expand(record)
    }

    /// `record` with its preset's settings in its empty cells (as it is when it names none),
    /// or the error of a preset there is not or that sets what no column is.
    public func expand(_ record: ManifestRecord) -> Result<ManifestRecord, RowError> {
        var record = record
        guard let name = record.values[.preset] else { return .success(record) }
        if let keys = strays[name] {
            return .failure(RowError(row: record.line, column: ManifestColumn.preset.rawValue, value: name,
                                     reason: "sets \(keys.joined(separator: ", ")), which no manifest column is"))
        }
        guard let cells = presets[name] else {
            let known = Set(presets.keys).union(strays.keys).sorted()
            return .failure(RowError(row: record.line, column: ManifestColumn.preset.rawValue, value: name,
                                     reason: "names no preset of the thumbgen.toml"
                                         + (known.isEmpty ? "" : " (its presets: \(known.joined(separator: ", ")))")))
        }
        record.values[.preset] = nil
        for (column, value) in cells where record.values[column] == nil { record.values[column] = value }
        return .success(record)
    }
}
