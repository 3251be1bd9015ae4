import Foundation
import Testing
@testable import Thumbgen

/// `ManifestReader(bySource:)`: a manifest file's records come back source by source, each
/// exactly as a reading in manifest order gives it.
@Suite("ManifestReader: records source by source")
struct ManifestReaderOrderTests {
    /// Every entry of `text` saved as `name`, read `bySource` (with `shard`), and the lines
    /// `onRead` heard.
    static func bySource(_ text: String, name: String = "m.csv", shard: Shard? = nil) throws
        -> (entries: [Result<ManifestRecord, RowError>], heard: [Int], regroups: Bool)
    {
        let folder = try TemporaryDirectory("order")
        let url = try folder.write(Data(text.utf8), to: name)
        let reader = try ManifestReader(path: url.path, bySource: true, keeps: shard.map { s in { s.owns(src: $0) } })
        var heard: [Int] = []
        reader.onRead = { heard.append($0) }
        var entries: [Result<ManifestRecord, RowError>] = []
        while let entry = try reader.next() { entries.append(entry) }
        return (entries, heard, reader.regroups)
    }

    /// The entries in the order the run reads them, from a reading in manifest order: stably
    /// sorted by the position of each record's source's first record.
    static func expectedOrder(_ entries: [Result<ManifestRecord, RowError>]) -> [Result<ManifestRecord, RowError>] {
        var first: [String: Int] = [:]
        let keyed = entries.enumerated().map { index, entry -> (Int, Int) in
            guard let src = entry.value?.values[.src] else { return (index, index) }
            if first[src] == nil { first[src] = index }
            return (first[src]!, index)
        }
        return keyed.sorted { $0 < $1 }.map { entries[$0.1] }
    }

    static func same(_ a: [Result<ManifestRecord, RowError>], _ b: [Result<ManifestRecord, RowError>]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.value == y.value && x.failureValue?.row == y.failureValue?.row
        }
    }

    @Test("CSV: quoted fields across lines, CRLF, blank lines, a BOM, a short and a long record; each source's records together, each as read in order")
    func csv() throws {
        let text = "\u{FEFF}src,width,id\r\n"
            + "a.jpg,10,\"one\r\ntwo\"\r\n"
            + "b.jpg,20,x\r\n"
            + "\r\n"
            + "\"a.jpg\",30,\"say \"\"hi\"\"\"\r\n"
            + "c.jpg,1,2,3\r\n"
            + "b.jpg,40,y\n"
            + ",50,no source\n"
            + "a.jpg,60,last"
        let inOrder = try ManifestText.entries(text)
        let read = try Self.bySource(text)
        #expect(read.regroups)
        #expect(Self.same(read.entries, Self.expectedOrder(inOrder)),
                "\(read.entries.map { $0.value?.line ?? -($0.failureValue?.row ?? 0) })")
        // No line is announced: the report puts a regrouped file's rows in order at its end.
        #expect(read.heard.isEmpty)
        #expect(read.entries.compactMap { $0.value?.values[.id] }.prefix(3) == ["one\r\ntwo", "say \"hi\"", "last"])
    }

    @Test("CSV with `src` not first: a record of one field is a record, not a blank line; a quoted empty line is blank")
    func srcNotFirst() throws {
        let text = "id,src,width\nlonely\n1,a.jpg,10\n\"\"\n2,b.jpg,20\n3,a.jpg,30\n"
        let inOrder = try ManifestText.entries(text)
        #expect(inOrder.count == 4)
        let read = try Self.bySource(text)
        #expect(Self.same(read.entries, Self.expectedOrder(inOrder)),
                "\(read.entries.map { $0.value?.line ?? -($0.failureValue?.row ?? 0) })")
    }

    @Test("The byte scanner finds the records the parser reads, at the same bytes and lines, with the same src, in 3,000 texts of quotes, doubled quotes, CR, LF and CRLF")
    func scannerAgreesWithParser() throws {
        var generator = PlanPropertyTests.SeededGenerator(state: 45)
        let pieces = ["a", "b.jpg", ",", ",", "\"", "\"\"", "\n", "\r", "\r\n", " ", "x,y", "\"q\"", "é", "\"\n"]
        for round in 0..<3000 {
            let body = (0..<Int.random(in: 0...30, using: &generator))
                .map { _ in pieces.randomElement(using: &generator)! }.joined()
            let text = Data(("id,src,width\n" + body).utf8)
            let folder = try TemporaryDirectory("scan")
            let url = try folder.write(text, to: "m.csv")
            // The parser: each record's first byte, line and src cell (nil past the header's
            // three fields or short of the second), and the error it ends with.
            let parser = CSVRecordParser(chunks: ByteChunks(handle: try FileHandle(forReadingFrom: url), chunkSize: 7))
            _ = try parser.next()
            let start = parser.nextByte
            var parsed: [String] = []
            var parseError: Int?
            do {
                while let record = try parser.next() {
                    let fits = record.fields.count <= 3 && record.fields.count > 1 && !record.fields[1].isEmpty
                    parsed.append("\(parser.recordOffset)@\(record.line):\(fits ? record.fields[1] : "-")")
                }
            } catch CSVParseError.unterminatedQuote(let line) {
                parseError = line
            }
            var scanner = CSVSourceScanner(sourceField: 1, columns: 3, offset: start.offset, line: start.line)
            var scanned: [String] = []
            func found(_ record: CSVSourceScanner.Found) {
                scanned.append("\(record.offset)@\(record.line):\(record.source.map { String(decoding: $0, as: UTF8.self) } ?? "-")")
            }
            // In chunks of 5 bytes, so that a CRLF or a doubled quote falls across two.
            var scanError: Int?
            let bytes = Array(text)
            for chunk in stride(from: start.offset, to: bytes.count, by: 5) {
                bytes[chunk..<min(bytes.count, chunk + 5)].withUnsafeBytes { scanner.scan($0, found) }
            }
            do { try scanner.finish(found) } catch { if case .unterminatedQuote(let line) = error { scanError = line } }
            #expect(scanned == parsed && scanError == parseError, "round \(round): \(body.debugDescription)")
            if scanned != parsed { break }
        }
    }

    @Test("JSON Lines: records source by source, a bad line alone in its place")
    func jsonLines() throws {
        let text = "{\"src\":\"a.png\",\"width\":1}\n{\"src\":\"b.png\",\"width\":2}\nnot json\n\n"
            + "{\"src\":\"a.png\",\"width\":3}\n{\"src\":\"b.png\",\"width\":4}"
        let inOrder = try ManifestText.entries(text, name: "m.jsonl")
        let read = try Self.bySource(text, name: "m.jsonl")
        #expect(read.regroups)
        #expect(Self.same(read.entries, Self.expectedOrder(inOrder)))
        #expect(read.entries.map { $0.value?.values[.width] ?? "bad" } == ["1", "3", "2", "4", "bad"])
    }

    @Test("A manifest that keeps its sources together is read as it comes; a shard's reading has its records only")
    func groupedAndSharded() throws {
        let grouped = "src,width\na.jpg,1\na.jpg,2\nb.jpg,1\nc.jpg,1\nc.jpg,2\n"
        let read = try Self.bySource(grouped)
        #expect(!read.regroups && read.heard.isEmpty)
        #expect(Self.same(read.entries, try ManifestText.entries(grouped)))

        let sizesOuter = "src,width\n" + [1, 2, 3].flatMap { w in (0..<12).map { "s\($0).jpg,\(w)\n" } }.joined()
        let all = try ManifestText.entries(sizesOuter)
        for index in 0..<3 {
            let shard = try Shard(index: index, count: 3)
            let mine = all.filter { shard.owns($0) }
            let read = try Self.bySource(sizesOuter, shard: shard)
            #expect(Self.same(read.entries, Self.expectedOrder(mine)), "shard \(index)")
        }
    }

    @Test("A quote left open: the records before it come back source by source, then the manifest's error")
    func openQuote() throws {
        let folder = try TemporaryDirectory("order")
        let url = try folder.write("src,id\na.jpg,1\nb.jpg,2\na.jpg,3\n\"c.jpg,4\nd.jpg,5\n", to: "m.csv")
        let reader = try ManifestReader(path: url.path, bySource: true)
        #expect(try reader.next()?.value?.line == 2)
        #expect(try reader.next()?.value?.line == 4)
        #expect(try reader.next()?.value?.line == 3)
        #expect(throws: ManifestError.unterminatedQuote(path: url.path, line: 5)) { _ = try reader.next() }
    }

    @Test("Standard input's window: a source's records within it come together; one further apart comes again, and is counted")
    func window() throws {
        let folder = try TemporaryDirectory("order")
        let text = "src,width\na.jpg,1\nb.jpg,1\na.jpg,2\nc.jpg,1\nd.jpg,1\na.jpg,3\n"
        let url = try folder.write(Data(text.utf8), to: "m.csv")
        let window = SourceWindow(try ManifestReader(path: url.path), size: 3)
        var heard: [Int] = []
        window.onRead = { heard.append($0) }
        var lines: [Int] = []
        while let entry = try window.next() { lines.append(entry.value!.line) }
        // a, b, a fill the window; a's two go; c, d come in; b goes, then c; a's third
        // joins d in the window behind c: a comes a second time.
        #expect(lines == [2, 4, 3, 5, 6, 7])
        #expect(heard == [2, 3, 4, 5, 6, 7])
        #expect(window.splitSources == 1)
    }
}

/// The report of rows that end far from manifest order: in manifest order, whole, when its
/// waiting records went to a file.
@Suite("ReportStream: records waiting for their turn")
struct ReportWaitingTests {
    @Test("Rows ending in any order, within and past the memory bound, their lines announced or not: every row once, in manifest order",
          arguments: [1 << 20, 2_000], [true, false])
    func order(waitingInMemory: Int, announced: Bool) throws {
        let folder = try TemporaryDirectory("report-order")
        let url = folder.file("report.json")
        let stream = try ReportStream(destination: url, waitingInMemory: waitingInMemory)
        let lines = Array(stride(from: 2, to: 602, by: 1))
        if announced { lines.forEach(stream.expect(line:)) }
        // The run order of 60 sources at ten sizes listed sizes first: line 2, 62, 122, ...
        let runOrder = (0..<60).flatMap { source in (0..<10).map { 2 + source + 60 * $0 } }
        for line in runOrder {
            try stream.add(.failed(row: line, id: String(line), src: "s\(line % 60).png", .noPlan("s")))
        }
        try stream.finish(summary: RunSummary())
        let report = try Report.read(url)
        #expect(report.rows.map(\.row) == lines)
        #expect(report.rows.allSatisfy { $0.id == String($0.row) })
    }
}
