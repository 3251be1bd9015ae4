import Foundation

/// The report's records that finished before their turn, by row: in memory up to a bound, then
/// in an unnamed temporary file.
///
/// A manifest read source by source (`SourceOrder`) runs its rows far from manifest order: with
/// its sizes as the outer loop, nine rows in ten finish long before their turn, and a
/// million-row report would wait whole in memory. Past `memoryLimit` bytes, the waiting
/// records move to the file, and each is read back at its turn; what stays in memory is 16
/// bytes and a table slot a row.
struct WaitingRecords {
    /// Bytes of records held in memory before they move to the file.
    static let memoryLimit = 8 << 20

    private var inMemory: [Int: [UInt8]] = [:]
    private var memoryBytes = 0
    private var inFile: [Int: (offset: Int, count: Int)] = [:]
    private var file: Int32 = -1
    private var fileSize = 0

    /// Whether no record waits.
    var isEmpty: Bool { inMemory.isEmpty && inFile.isEmpty }

    /// Keeps `row`'s record until its turn.
    mutating func add(row: Int, record: ArraySlice<UInt8>) throws {
        inMemory[row] = Array(record)
        memoryBytes += record.count
        if memoryBytes > Self.memoryLimit { try moveToFile() }
    }

    /// `row`'s record, taken out; nil when it does not wait.
    mutating func take(row: Int) throws -> [UInt8]? {
        if let record = inMemory.removeValue(forKey: row) {
            memoryBytes -= record.count
            return record
        }
        guard let (offset, count) = inFile.removeValue(forKey: row) else { return nil }
        var record = [UInt8](repeating: 0, count: count)
        let read = record.withUnsafeMutableBytes { pread(file, $0.baseAddress, count, off_t(offset)) }
        guard read == count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if inFile.isEmpty { close() }
        return record
    }

    /// The rows still waiting, in order.
    var rows: [Int] { (Array(inMemory.keys) + Array(inFile.keys)).sorted() }

    /// Closes the file (its space is freed: it never had a name).
    mutating func close() {
        if file >= 0 { Foundation.close(file) }
        file = -1
        fileSize = 0
        inFile = [:]
    }

    private mutating func moveToFile() throws {
        if file < 0 {
            var template = Array((NSTemporaryDirectory() + "/thumbgen-report-XXXXXX").utf8CString)
            file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            _ = fcntl(file, F_SETFD, FD_CLOEXEC)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        var block: [UInt8] = []
        block.reserveCapacity(memoryBytes)
        for (row, record) in inMemory {
            inFile[row] = (fileSize + block.count, record.count)
            block += record
        }
        guard block.withUnsafeBytes({ DescriptorIO.writeAll(file, $0) }) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        fileSize += block.count
        inMemory = [:]
        memoryBytes = 0
    }
}
