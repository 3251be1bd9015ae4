import Foundation
import Testing
@testable import Thumbgen

/// The CSV side of `ManifestReader`: RFC 4180, line numbers, headers, and which problems fail
/// one row and which the whole manifest.
@Suite("ManifestReader: CSV")
struct ManifestReaderCSVTests {
    @Test("A plain manifest gives one record per row, numbered by line (header is line 1)")
    func plainRows() throws {
        let records = try ManifestText.records("src,width\na.jpg,100\nb.jpg,200\n")
        #expect(records == [
            ManifestRecord(line: 2, values: [.src: "a.jpg", .width: "100"]),
            ManifestRecord(line: 3, values: [.src: "b.jpg", .width: "200"]),
        ])
    }

    @Test("Quoted fields keep commas and doubled quotes")
    func quotedCommasAndQuotes() throws {
        let records = try ManifestText.records(
            "src,id\n\"a,b.jpg\",\"say \"\"hi\"\"\"\n\"\",x\nlast.jpg,\"\"\n")
        #expect(records.count == 3)
        #expect(records[0].values[.src] == "a,b.jpg")
        #expect(records[0].values[.id] == "say \"hi\"")
        // An empty quoted cell is an absent cell.
        #expect(records[1].values[.src] == nil)
        #expect(records[1].values[.id] == "x")
        #expect(records[2].values[.id] == nil)
    }

    @Test("Embedded newlines stay in the field and push the next records' line numbers")
    func embeddedNewlines() throws {
        let text = "src,id\n\"multi\nline.jpg\",one\nnext.jpg,two\n\"x\n\ny.jpg\",three\nz.jpg,four\n"
        let records = try ManifestText.records(text)
        #expect(records.map(\.line) == [2, 4, 5, 8])
        #expect(records[0].values[.src] == "multi\nline.jpg")
        #expect(records[2].values[.src] == "x\n\ny.jpg")
        #expect(records[3].values[.id] == "four")
    }

    @Test("CRLF line ends are not part of the values, inside or outside quotes")
    func crlf() throws {
        let records = try ManifestText.records("src,width\r\na.jpg,10\r\n\"b\r\nc.jpg\",20\r\nd.jpg,30")
        #expect(records.map(\.line) == [2, 3, 5])
        #expect(records.map { $0.values[.width] } == ["10", "20", "30"])
        #expect(records[1].values[.src] == "b\r\nc.jpg")
    }

    @Test("A UTF-8 byte order mark before the header is ignored")
    func byteOrderMark() throws {
        let bytes = Data([0xEF, 0xBB, 0xBF]) + Data("src,width\nä.jpg,5\n".utf8)
        let records = try ManifestText.entries(bytes).map { try $0.get() }
        #expect(records == [ManifestRecord(line: 2, values: [.src: "ä.jpg", .width: "5"])])
    }

    @Test("Blank lines are skipped but still counted")
    func blankLines() throws {
        let records = try ManifestText.records("src\n\na.jpg\n\n\nb.jpg\n\n")
        #expect(records.map(\.line) == [3, 6])
        #expect(records.map { $0.values[.src] } == ["a.jpg", "b.jpg"])
    }

    @Test("Header names are case-insensitive, trimmed, and know the aliases",
          arguments: [
            ("SRC,Width,FIT", [ManifestColumn.src, .width, .fit]),
            ("url,out", [.src, .out]),
            ("Source,Max_Age", [.src, .maxAge]),
            (" src , max-age ", [.src, .maxAge]),
          ])
    func headerNames(header: String, columns: [ManifestColumn]) throws {
        let cells = columns.indices.map { "v\($0)" }
        let records = try ManifestText.records(header + "\n" + cells.joined(separator: ",") + "\n")
        #expect(records.count == 1)
        for (column, cell) in zip(columns, cells) {
            #expect(records.first?.values[column] == cell)
        }
    }

    @Test("An unknown column fails the manifest, naming it and listing the known ones")
    func unknownColumn() throws {
        let error = ManifestText.manifestError("src,tint\na.jpg,red\n")
        guard case .unknownColumn(_, let column)? = error else {
            Issue.record("expected unknownColumn, got \(String(describing: error))")
            return
        }
        #expect(column == "tint")
        let message = try #require(error).description
        #expect(message.contains("'tint'"))
        for known in ["src", "out", "width", "height", "size", "fit", "gravity", "crop", "upscale",
                      "kernel", "format", "quality", "background", "priority", "max_age", "id"] {
            #expect(message.contains(known), "message lacks \(known): \(message)")
        }
    }

    @Test("A column named twice (an alias counts) fails the manifest, naming it",
          arguments: [("src,width,SRC", "SRC"), ("url,source", "source"), ("src,Width,width", "width")])
    func duplicateColumn(header: String, repeated: String) {
        guard case .duplicateColumn(_, let column)? = ManifestText.manifestError(header + "\n") else {
            Issue.record("\(header) was accepted")
            return
        }
        #expect(column == repeated)
    }

    @Test("A header without src fails the manifest; so does an empty file")
    func missingSourceAndEmpty() {
        guard case .missingSourceColumn? = ManifestText.manifestError("width,height\n1,2\n") else {
            Issue.record("a header without src was accepted")
            return
        }
        guard case .empty? = ManifestText.manifestError("") else {
            Issue.record("an empty manifest was accepted")
            return
        }
        #expect(ManifestText.manifestError("\n\n") != nil)
    }

    @Test("Too many fields fail only that row; too few leave the rest absent")
    func fieldCounts() throws {
        let entries = try ManifestText.entries("src,width\na.jpg,1,extra\nb.jpg\nc.jpg,3\n")
        #expect(entries.count == 3)
        let error = try #require(entries[0].failureValue)
        #expect(error.row == 2)
        #expect(error.description.contains("3 fields"))
        #expect(entries[1].value == ManifestRecord(line: 3, values: [.src: "b.jpg"]))
        #expect(entries[2].value == ManifestRecord(line: 4, values: [.src: "c.jpg", .width: "3"]))
    }

    @Test("A quote left open fails the manifest with the line it opened on")
    func unterminatedQuote() throws {
        let folder = try TemporaryDirectory()
        let url = try folder.write("src,id\na.jpg,1\n\"b.jpg,2\nc.jpg,3\n", to: "m.csv")
        let reader = try ManifestReader(path: url.path)
        #expect(try reader.next()?.value?.values[.src] == "a.jpg")
        #expect(throws: ManifestError.unterminatedQuote(path: url.path, line: 3)) {
            _ = try reader.next()
        }
        #expect(ManifestText.manifestError("\"src\n") != nil)
    }

    @Test("Records and CRLFs that straddle the 64 KiB read chunks parse whole")
    func chunkBoundaries() throws {
        // Pad so that a CRLF is split across the first chunk boundary, then a quoted field
        // across the second, then many more rows.
        let chunk = 1 << 16
        var text = "src,id\r\n"
        let filler = "f.jpg," + String(repeating: "x", count: chunk - text.utf8.count - 7) + "\r\n"
        text += filler
        #expect(text.utf8.count == chunk + 1)  // the CR is the chunk's last byte
        let quoted = "\"q,\r\n" + String(repeating: "y", count: chunk) + "\",2\r\n"
        text += quoted
        for i in 0..<5000 { text += "r\(i).jpg,\(i)\r\n" }
        let records = try ManifestText.records(text)
        #expect(records.count == 5002)
        #expect(records[0].values[.id]?.hasSuffix("x") == true)
        #expect(records[1].line == 3)
        #expect(records[1].values[.src]?.hasPrefix("q,\r\nyyy") == true)
        #expect(records[2].line == 5)
        #expect(records.last?.line == 5004)
        #expect(records.last?.values == [.src: "r4999.jpg", .id: "4999"])
    }

    @Test("A missing manifest or a folder is unreadable")
    func unreadable() throws {
        let folder = try TemporaryDirectory()
        #expect(throws: ManifestError.self) { try ManifestReader(path: folder.file("nope.csv").path) }
        #expect(throws: ManifestError.self) { try ManifestReader(path: folder.url.path) }
        do {
            _ = try ManifestReader(path: folder.file("nope.csv").path)
        } catch {
            #expect(error.description.contains("nope.csv"))
        }
    }

    @Test("Relative sources resolve against the manifest's folder")
    func baseDirectory() throws {
        let folder = try TemporaryDirectory()
        let url = try folder.write("src\na.jpg\n", to: "sub/m.csv")
        let reader = try ManifestReader(path: url.path)
        #expect(reader.baseDirectory == folder.file("sub").standardizedFileURL.path)
    }
}
