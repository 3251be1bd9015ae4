import Foundation

/// What the cache knows of one rendered output: its bytes (a blob) and what the report needs.
struct OutputRecord: Sendable, Equatable {
    /// The SHA-256 of the encoded bytes: the blob's name.
    var sha256: String
    var width: Int
    var height: Int
    var format: OutputFormat
    var bytes: Int
    /// The placeholder made from the output's pixels, when it made its source's.
    var placeholder: Placeholder? = nil
    /// Whether the output is the one its source's placeholder is made from, rendered by a run
    /// that made none (`PipelineConfiguration.makesPlaceholders`); never with `placeholder`.
    var owesPlaceholder = false
    /// The part of the source the output shows, when not all of it.
    var cropBox: CropBox? = nil
}

/// Output records by output key.
struct OutputIndex: Sendable {
    let layout: CacheLayout
    /// Where a record read is noted as used (never by touching its file).
    let uses: UseLog
    /// Every write and removal of a record goes through it (the `outputs` generation).
    let changes: RecordChanges

    /// What the index holds under one key.
    enum Lookup {
        case found(OutputRecord)
        case absent
        /// A record is there but does not decode: never served, and left for the render that
        /// replaces it (or `cache verify`) to remove; a lookup deletes nothing.
        case damaged
        /// The key's verdict: its output cannot fit the row's `max_output_bytes` even at
        /// `--min-quality` (`storeVerdict`), so the row fails without a decode.
        case overBudget(OutputOverBudget)

        /// Whether a sound record was found.
        var isFound: Bool {
            if case .found = self { true } else { false }
        }

        /// Whether the key is answered here, by an output or a verdict: the remote cache is
        /// not asked (it holds no verdicts).
        var answers: Bool {
            switch self {
            case .found, .overBudget: true
            case .absent, .damaged: false
            }
        }
    }

    /// The record for `key`, or nil when there is none or it is damaged.
    func record(_ key: String) -> OutputRecord? {
        if case .found(let record) = lookup(key) { return record }
        return nil
    }

    /// What is stored under `key`.
    func lookup(_ key: String) -> Lookup {
        lookupStamped(key).lookup
    }

    /// `lookup`, with the stamp of the record found (as it is after the read): the warm
    /// journal tells by it that the record still says the same.
    func lookupStamped(_ key: String) -> (lookup: Lookup, stamp: FileStamp?) {
        let path = layout.path(.outputs, key)
        guard let (bytes, written, stamp) = layout.readStamped(path) else { return (.absent, nil) }
        uses.used(.outputs, key, written: written, looksOnly: layout.looksOnly)
        guard let entry = CacheRecord(decoding: bytes) else { return (.damaged, nil) }
        if let record = Self.decode(entry) { return (.found(record), stamp) }
        if let verdict = Self.decodeVerdict(entry) { return (.overBudget(verdict), stamp) }
        return (.damaged, nil)
    }

    /// The output record `entry` holds, or nil when a field is missing or malformed.
    static func decode(_ entry: CacheRecord) -> OutputRecord? {
        guard let sha = entry["sha256"], ContentDigest.isValid(sha),
              let width = entry["width"].flatMap(Int.init),
              let height = entry["height"].flatMap(Int.init),
              let format = entry["format"].flatMap(OutputFormat.init(rawValue:)),
              let size = entry["bytes"].flatMap(Int.init) else { return nil }
        return OutputRecord(sha256: sha, width: width, height: height, format: format, bytes: size,
                            placeholder: entry["placeholder"].flatMap(Placeholder.init(stored:)),
                            owesPlaceholder: entry["placeholder"] == owedPlaceholder,
                            cropBox: entry["crop_box"].flatMap(CropBox.init(stored:)))
    }

    /// Stores `record` under `key` (replacing any).
    func store(_ record: OutputRecord, key: String) {
        changes.willChange()
        guard layout.write(Self.entry(record).encoded, to: layout.path(.outputs, key)) else { return }
        uses.stored(.outputs, key, looksOnly: layout.looksOnly)
    }

    /// The verdict `entry` holds (`verdictEntry`), or nil when it holds none or a malformed one.
    /// A verdict has no `sha256`, so `decode` (and so every reader that wants an output: the
    /// remote's, `cache prune`'s blob, a thumbgen before verdicts) takes it for no output.
    static func decodeVerdict(_ entry: CacheRecord) -> OutputOverBudget? {
        guard entry["verdict"] == Self.overBudgetVerdict, entry["sha256"] == nil,
              let bytes = entry["bytes"].flatMap(Int.init), let limit = entry["limit"].flatMap(Int.init),
              bytes > limit, limit > 0 else { return nil }
        var quality: Int?
        if let text = entry["quality"] {
            guard let value = Int(text) else { return nil }
            quality = value
        }
        return OutputOverBudget(bytes: bytes, limit: limit, quality: quality)
    }

    /// The `verdict` field's value for an output that cannot fit its `max_output_bytes`.
    private static let overBudgetVerdict = "over_budget"

    /// Stores under `key` that its output cannot fit (`verdict`), in place of an output record:
    /// the next run fails the row from here, without a decode. It names no blob: `cache prune`
    /// and `clear` take it as any record, `verify` keeps it, and it is never uploaded.
    func storeVerdict(_ verdict: OutputOverBudget, key: String) {
        changes.willChange()
        guard layout.write(Self.verdictEntry(verdict).encoded, to: layout.path(.outputs, key)) else { return }
        uses.stored(.outputs, key, looksOnly: layout.looksOnly)
    }

    /// A verdict's fields, as `decodeVerdict` reads them.
    static func verdictEntry(_ verdict: OutputOverBudget) -> CacheRecord {
        var entry = CacheRecord()
        entry["verdict"] = overBudgetVerdict
        entry["bytes"] = String(verdict.bytes)
        entry["limit"] = String(verdict.limit)
        entry["quality"] = verdict.quality.map(String.init)
        return entry
    }

    /// The record's fields, as `decode` reads them.
    static func entry(_ record: OutputRecord) -> CacheRecord {
        var entry = CacheRecord()
        entry["sha256"] = record.sha256
        entry["width"] = String(record.width)
        entry["height"] = String(record.height)
        entry["format"] = record.format.rawValue
        entry["bytes"] = String(record.bytes)
        entry["placeholder"] = record.placeholder?.stored ?? (record.owesPlaceholder ? owedPlaceholder : nil)
        entry["crop_box"] = record.cropBox?.stored
        return entry
    }

    /// The `placeholder` field's value for a record that owes its source's placeholder: a
    /// version before it reads it as no placeholder (`Placeholder(stored:)` refuses it).
    private static let owedPlaceholder = "owed"

    /// Forgets `key` (its blob was found damaged).
    func remove(_ key: String) {
        changes.willChange()
        layout.remove(layout.path(.outputs, key))
    }
}
