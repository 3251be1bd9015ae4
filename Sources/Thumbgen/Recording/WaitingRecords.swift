import Foundation

/// The report's records that finished before their turn, by row: in memory up to a bound; past
/// it, every record from then on goes to an unnamed temporary file, and the file is put in
/// order once, at the end.
///
/// A manifest read source by source (`SourceOrder`) runs its rows far from manifest order: with
/// its sizes as the outer loop, nine rows in ten finish long before their turn, and a
/// million-row report would wait whole in memory. Once the records waiting pass
/// `memoryLimit` bytes, they and every later record are appended to the file as they come
/// (the report is written whole at the end anyway: it is renamed into place then); what stays
/// in memory is 16 bytes a record, sorted by row at the end.
struct WaitingRecords {
    /// Bytes of records held in memory before they go to the file, by default.
    static let defaultMemoryLimit = 8 << 20
    /// Bytes of records held in memory before they go to the file.
    let memoryLimit: Int

    /// Waiting records that go to a file past `memoryLimit` bytes.
    init(memoryLimit: Int = Self.defaultMemoryLimit) {
        self.memoryLimit = memoryLimit
    }

    private var inMemory: [Int: [UInt8]] = [:]
    private var memoryBytes = 0
    /// One record in the file: its row, where it starts, how long it is.
    private typealias Entry = (row: UInt32, count: UInt32, offset: Int)
    /// The records in the file, in blocks of `blockEntries`: one array grown by doubling would
    /// hold up to twice the entries, and three times while it is copied.
    private var inFile: [[Entry]] = []
    private static let blockEntries = 1 << 16
    private var file: Int32 = -1
    private var fileSize = 0
    /// Records appended to the file but not yet written to it.
    private var block: [UInt8] = []

    /// Whether records go to the file: then no record is written before the end.
    var isSpilling: Bool { file >= 0 }

    /// Whether no record waits.
    var isEmpty: Bool { inMemory.isEmpty && inFile.isEmpty }

    /// Keeps `row`'s record until its turn.
    mutating func add(row: Int, record: ArraySlice<UInt8>) throws {
        if isSpilling { return try append(row: row, record: record) }
        inMemory[row] = Array(record)
        memoryBytes += record.count
        guard memoryBytes > memoryLimit else { return }
        var template = Array((NSTemporaryDirectory() + "/thumbgen-report-XXXXXX").utf8CString)
        file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        _ = fcntl(file, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        for (row, record) in inMemory { try append(row: row, record: record[...]) }
        inMemory = [:]
        memoryBytes = 0
    }

    /// `row`'s record, taken out, when it waits in memory.
    mutating func take(row: Int) -> [UInt8]? {
        guard let record = inMemory.removeValue(forKey: row) else { return nil }
        memoryBytes -= record.count
        return record
    }

    /// Hands every record still waiting to `write`, in row order, and closes the file.
    mutating func drain(_ write: (ArraySlice<UInt8>) throws -> Void) throws {
        defer { close() }
        for row in inMemory.keys.sorted() { try write(inMemory[row]![...]) }
        inMemory = [:]
        guard isSpilling else { return }
        try flushBlock()
        var entries: [Entry] = []
        entries.reserveCapacity(inFile.reduce(0) { $0 + $1.count })
        while let block = inFile.popLast() { entries += block }
        entries.sort { $0.row < $1.row }
        var record: [UInt8] = []
        for entry in entries {
            record.removeAll(keepingCapacity: true)
            record.append(contentsOf: repeatElement(0, count: Int(entry.count)))
            let read = record.withUnsafeMutableBytes { pread(file, $0.baseAddress, $0.count, off_t(entry.offset)) }
            guard read == Int(entry.count) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            try write(record[...])
        }
    }

    /// Closes the file (its space is freed: it never had a name).
    mutating func close() {
        if file >= 0 { Foundation.close(file) }
        file = -1
        inFile = []
        block = []
    }

    private mutating func append(row: Int, record: ArraySlice<UInt8>) throws {
        if inFile.last.map({ $0.count == Self.blockEntries }) ?? true {
            inFile.append([])
            inFile[inFile.count - 1].reserveCapacity(Self.blockEntries)
        }
        inFile[inFile.count - 1].append((UInt32(truncatingIfNeeded: row), UInt32(record.count), fileSize + block.count))
        block.append(contentsOf: record)
        if block.count >= 1 << 20 { try flushBlock() }
    }

    private mutating func flushBlock() throws {
        guard block.withUnsafeBytes({ DescriptorIO.writeAll(file, $0) }) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        fileSize += block.count
        block.removeAll(keepingCapacity: true)
    }
}
