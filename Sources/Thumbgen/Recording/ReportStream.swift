import Foundation

/// Writes the `--report` file as the run goes, in manifest order, in constant memory.
///
/// Rows finish out of order (several are in flight at once), so each result waits here only
/// until the rows read before it have finished: at most the pipeline's admission window. A
/// manifest file run source by source announces no lines: its records wait, in memory and
/// past 8 MiB in a temporary file (`WaitingRecords`), and are put in order at the end. The
/// file is built under a temporary name beside the report and renamed into place at the end,
/// so a report is never seen half-written. Layout (schema 1, documented in docs/report.md):
/// `{"schema":1,"rows":[ one compact record per line ],"summary":{...}}`, with `"merged"` and
/// `"shard"` before `"summary"` when they apply (`ReportReader` reads this layout back).
public final class ReportStream {
    private let destination: URL
    /// The file being written, under a locked temporary name beside the report.
    private let temporary: TemporaryFile
    private let handle: FileHandle
    private let encoder: JSONEncoder
    private var expected: [Int] = []  // lines read, in order, whose records are not written yet
    private var head = 0
    private var waiting: WaitingRecords  // rows' records, by line
    private var first = true
    /// Records not yet handed to the file: written in blocks of about 64 KiB, not a system
    /// call per row.
    private var pending: [UInt8] = []

    /// Starts a report that will be put at `destination` by `finish`; its folder is created if
    /// missing, like `--out`.
    public convenience init(destination: URL) throws {
        try self.init(destination: destination, waitingInMemory: WaitingRecords.defaultMemoryLimit)
    }

    /// As above; records finished before their turn go to a temporary file past
    /// `waitingInMemory` bytes.
    init(destination: URL, waitingInMemory: Int) throws {
        waiting = WaitingRecords(memoryLimit: waitingInMemory)
        self.destination = destination
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TemporaryName.sweep(folder.path)
        guard let temporary = TemporaryFile(in: folder.path, for: destination.lastPathComponent,
                                            registry: .shared) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination.path])
        }
        self.temporary = temporary
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary.path))
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try handle.write(contentsOf: Data("{\"schema\":1,\"rows\":[".utf8))
    }

    /// Notes that the record on `line` was read, fixing its place in the report.
    public func expect(line: Int) {
        expected.append(line)
    }

    /// Adds a finished row; it is written once every row read before it is.
    public func add(_ result: RowResult) throws {
        var record: [UInt8] = []
        result.appendJSON(to: &record)
        try add(row: result.row, record: record[...])
    }

    /// Adds a finished row's record, already encoded (`RowResult.appendJSON`), so that callers
    /// can encode outside their lock.
    func add(row: Int, record: ArraySlice<UInt8>) throws {
        if !waiting.isSpilling, head < expected.count, expected[head] == row {
            // Its turn (a batch's rows end in order): written without the reorder table.
            head += 1
            try write(record)
        } else {
            try waiting.add(row: row, record: record)
        }
        while !waiting.isEmpty, !waiting.isSpilling, head < expected.count,
              let next = waiting.take(row: expected[head]) {
            head += 1
            try write(next[...])
        }
        // Dropped once they are half the lines: every line may be announced at once
        // (`ManifestReader` read source by source), and dropping 4,096 of a million each time
        // moved the rest again and again.
        if head > 4096 && head * 2 > expected.count {
            expected.removeFirst(head)
            head = 0
        }
    }

    /// Writes any rows still waiting and the summary (and, for a sharded run or a merge, what
    /// it covers; with `--prune`, the files removed), and puts the report in place.
    public func finish(summary: RunSummary, shard: ReportShard? = nil, merged: ReportMerged? = nil,
                       pruned: [PlacedFile]? = nil, pages: [SitePageReport]? = nil) throws {
        try waiting.drain { try write($0) }
        try writePending()
        try handle.write(contentsOf: Data("\n],".utf8))
        if let merged { try handle.write(contentsOf: Data("\"merged\":".utf8) + encoder.encode(merged) + Data(",".utf8)) }
        if let shard { try handle.write(contentsOf: Data("\"shard\":".utf8) + encoder.encode(shard) + Data(",".utf8)) }
        if let pruned { try handle.write(contentsOf: Data("\"pruned\":".utf8) + encoder.encode(pruned) + Data(",".utf8)) }
        if let pages { try handle.write(contentsOf: Data("\"pages\":".utf8) + encoder.encode(pages) + Data(",".utf8)) }
        try handle.write(contentsOf: Data("\"summary\":".utf8))
        try handle.write(contentsOf: encoder.encode(summary))
        try handle.write(contentsOf: Data("}\n".utf8))
        try handle.close()
        guard temporary.place({ rename($0, destination.path) == 0 }) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination.path])
        }
    }

    /// Gives the report up (an error before `finish`): the temporary goes, nothing is put in
    /// place.
    public func abandon() {
        waiting.close()
        try? handle.close()
        temporary.discard()
    }

    private func write(_ record: ArraySlice<UInt8>) throws {
        if !first { pending.append(UInt8(ascii: ",")) }
        pending.append(UInt8(ascii: "\n"))
        first = false
        pending.append(contentsOf: record)
        if pending.count >= 1 << 16 { try writePending() }
    }

    private func writePending() throws {
        let written = pending.withUnsafeBytes { DescriptorIO.writeAll(handle.fileDescriptor, $0) }
        guard written else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        pending.removeAll(keepingCapacity: true)
    }
}
