/// The order a manifest file's records run in: source by source, every record of a source
/// together, the sources in the order of their first records (what a first pass over the file
/// learns, `ManifestReader` then reads the records in).
///
/// A source's rows share one decode only when they reach the pipeline together; a manifest
/// written with its sizes as the outer loop (`for size in sizes: for f in files`) names each
/// source once per size, far apart, and decoded every source once per row.
///
/// Memory: 16 bytes a record while the order is made (its offset, line and source's number),
/// 16 after, and a table of the distinct sources' hashes; a million records take about 16 MB
/// and 30 MB at the peak (docs/performance.md).
struct SourceOrder {
    /// Each record's first byte in the file, in manifest order.
    private(set) var offsets: [Int] = []
    /// Each record's first line, in manifest order.
    private(set) var lines: [UInt32] = []
    /// Indices into `offsets` in the order the records run; empty while the manifest's own
    /// order already keeps each source's records together.
    private(set) var order: [UInt32] = []
    /// Each record's source's number (sources numbered by their first record), while the
    /// first pass runs.
    private var sourceNumbers: [UInt32] = []
    private var numbers: [Int: UInt32] = [:]
    /// Whether every source's records so far came one after another.
    private(set) var isManifestOrder = true

    /// The records seen.
    var count: Int { offsets.count }

    /// The file's size in bytes, when known: after the first records, the arrays are sized
    /// for the records the rest of the file will hold at the same length, so that they do not
    /// double past it (a tenth of a ten-million-row run's memory).
    var fileSize: Int?
    private static let sampleRecords = 4096

    /// Notes the next record in manifest order: its first byte, its line and its `src` cell
    /// (nil for a record whose cells could not be read, which runs alone).
    mutating func add(offset: Int, line: Int, source: String?) {
        add(offset: offset, line: line, key: source.map { source in
            var hasher = Hasher()
            hasher.combine(source)
            return hasher.finalize()
        })
    }

    /// Notes the next record as above, given its `src` cell's bytes (one file's records are
    /// all given as text or all as bytes: the two hash apart).
    mutating func add(offset: Int, line: Int, sourceBytes: ArraySlice<UInt8>?) {
        add(offset: offset, line: line, key: sourceBytes.map { bytes in
            var hasher = Hasher()
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            return hasher.finalize()
        })
    }

    private mutating func add(offset: Int, line: Int, key: Int?) {
        let number: UInt32
        if let key {
            if let known = numbers[key] {
                number = known
            } else {
                number = UInt32(truncatingIfNeeded: numbers.count + unnamed)
                numbers[key] = number
            }
        } else {
            number = UInt32(truncatingIfNeeded: numbers.count + unnamed)
            unnamed += 1
        }
        // Numbers are handed out in order of first appearance: the manifest keeps each
        // source together exactly while no record's number is below its predecessor's.
        if let last = sourceNumbers.last, number < last { isManifestOrder = false }
        if offsets.count == Self.sampleRecords, let fileSize, offset > 0 {
            let expected = Int(Double(fileSize) / Double(offset) * Double(Self.sampleRecords) * 1.02) + 16
            offsets.reserveCapacity(expected)
            lines.reserveCapacity(expected)
            sourceNumbers.reserveCapacity(expected)
        }
        offsets.append(offset)
        lines.append(UInt32(truncatingIfNeeded: line))
        sourceNumbers.append(number)
    }

    /// Records without a source of their own seen so far.
    private var unnamed = 0

    /// Ends the first pass: the run order is made (a counting sort by source number, stable,
    /// so that a source's records keep their manifest order), unless the manifest's own order
    /// already keeps every source together.
    mutating func finish() {
        defer {
            sourceNumbers = []
            numbers = [:]
        }
        guard !isManifestOrder else { return }
        var starts = [Int](repeating: 0, count: numbers.count + unnamed + 1)
        for number in sourceNumbers { starts[Int(number) + 1] += 1 }
        for index in 1..<starts.count { starts[index] += starts[index - 1] }
        order = [UInt32](repeating: 0, count: sourceNumbers.count)
        for (index, number) in sourceNumbers.enumerated() {
            order[starts[Int(number)]] = UInt32(truncatingIfNeeded: index)
            starts[Int(number)] += 1
        }
    }

    /// The record that runs `position`th: its first byte and its line.
    func record(running position: Int) -> (offset: Int, line: Int) {
        let index = order.isEmpty ? position : Int(order[position])
        return (offsets[index], Int(lines[index]))
    }
}
