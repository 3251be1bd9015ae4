/// Groups the records of a manifest read once (standard input) by source, within a window of
/// records read ahead: what `ManifestReader` does for a whole file, bounded.
///
/// Records are read ahead while the input has them ready, up to `size`; `next()` then returns
/// the oldest source's records, every one of them in the window, before the next source's.
/// Input that comes slowly (a producer writing rows as it finds them) is never held back to
/// fill the window: what is in hand runs when nothing more is ready. A source whose rows are
/// further apart than the window holds comes back in more than one stretch, each decoded on
/// its own; `splitSources` counts those sources, and the run's summary says so.
///
/// Memory: the window's records (a few hundred bytes each), and a hash a source for the
/// sources already returned (to count the split ones).
public final class SourceWindow: RecordSource {
    /// The records read ahead that the window holds at most, by default: about 4 MB of
    /// records, and more rows apart than a manifest written source by source ever puts a
    /// source's rows (sizes as the outer loop put them a source count apart).
    public static let defaultSize = 16_384

    private let reader: ManifestReader
    private let size: Int
    /// The records in hand by source, and the sources in order of their first record in hand.
    private var bySource: [Int: [Result<ManifestRecord, RowError>]] = [:]
    private var sources: [Int] = []
    private var firstSource = 0
    private var held = 0
    /// The records being returned: the oldest source's.
    private var stretch: [Result<ManifestRecord, RowError>] = []
    private var stretchIndex = 0
    /// Sources returned already, and those counted as split.
    private var returned = Set<Int>()
    private var split = Set<Int>()
    /// Records without a source (cells unreadable) each run alone, under a key of their own.
    private var unnamed = 0
    private var atEnd = false

    /// Groups `reader`'s records (a shard's, when the reader keeps only those) within `size`
    /// records.
    public init(_ reader: ManifestReader, size: Int = SourceWindow.defaultSize) {
        self.reader = reader
        self.size = max(1, size)
    }

    /// The reader's folder.
    public var baseDirectory: String { reader.baseDirectory }
    /// The reader's.
    public var onWait: (() -> Void)? {
        get { reader.onWait }
        set { reader.onWait = newValue }
    }
    /// The reader's.
    public var sha256: String? { reader.sha256 }
    /// True: records come back source by source.
    public var regroups: Bool { true }
    /// Hears each record's line as it is read, in manifest order.
    public var onRead: ((Int) -> Void)?
    /// How many sources came back in more than one stretch.
    public var splitSources: Int { split.count }

    /// The next record of the oldest source in hand; nil at the end.
    public func next() throws(ManifestError) -> Result<ManifestRecord, RowError>? {
        if stretchIndex < stretch.count {
            defer { stretchIndex += 1 }
            return stretch[stretchIndex]
        }
        try fill()
        guard firstSource < sources.count else { return nil }
        let key = sources[firstSource]
        firstSource += 1
        if firstSource > 4096 {
            sources.removeFirst(firstSource)
            firstSource = 0
        }
        stretch = bySource.removeValue(forKey: key) ?? []
        stretchIndex = 1
        held -= stretch.count
        if key >= 0, !returned.insert(key).inserted { split.insert(key) }
        return stretch.first
    }

    /// Reads ahead: at least one record when none is in hand, then while the input has more
    /// ready and the window has room.
    private func fill() throws(ManifestError) {
        while !atEnd && held < size && (held == 0 || reader.isReady) {
            guard let entry = try reader.next() else {
                atEnd = true
                return
            }
            let (line, source) = entry.lineAndSource
            onRead?(line)
            let key: Int
            if let source {
                // Non-negative, so that records without a source (negative keys) never meet one.
                key = source.hashValue & Int.max
            } else {
                unnamed += 1
                key = -unnamed
            }
            if bySource[key, default: []].isEmpty { sources.append(key) }
            bySource[key, default: []].append(entry)
            held += 1
        }
    }
}
