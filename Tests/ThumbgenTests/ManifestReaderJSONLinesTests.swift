import Foundation
import Testing
@testable import Thumbgen

/// The JSON Lines side of `ManifestReader`: one object per line, the CSV's column names as keys.
@Suite("ManifestReader: JSON Lines")
struct ManifestReaderJSONLinesTests {
    @Test("Strings, numbers and booleans become cell text; null is an absent cell")
    func valueTypes() throws {
        let text = #"{"src":"a.jpg","width":100,"quality":1,"upscale":true,"id":null,"fit":"cover"}"#
            + "\n" + #"{"src":"b.jpg","upscale":false,"height":0.5,"max_age":-1}"# + "\n"
        let records = try ManifestText.entries(text, name: "m.jsonl").map { try $0.get() }
        #expect(records.count == 2)
        #expect(records[0] == ManifestRecord(line: 1, values: [
            .src: "a.jpg", .width: "100", .quality: "1", .upscale: "true", .fit: "cover"]))
        #expect(records[1].line == 2)
        #expect(records[1].values[.upscale] == "false")
        #expect(records[1].values[.height] == "0.5")
        #expect(records[1].values[.maxAge] == "-1")
    }

    @Test("Keys are case-insensitive and know the aliases")
    func keys() throws {
        let text = #"{"URL":"a.jpg","Max-Age":"60"}"# + "\n" + #"{"source":"b.jpg"}"#
        let records = try ManifestText.entries(text, name: "m.ndjson").map { try $0.get() }
        #expect(records.map { $0.values[.src] } == ["a.jpg", "b.jpg"])
        #expect(records[0].values[.maxAge] == "60")
    }

    @Test("A line that is not a JSON object fails only that line",
          arguments: [#"{"src": "a.jpg""#, "[1, 2]", #""a.jpg""#, "src=a.jpg", "{} {}"])
    func badLine(line: String) throws {
        let text = #"{"src":"first.jpg"}"# + "\n" + line + "\n" + #"{"src":"third.jpg"}"# + "\n"
        let entries = try ManifestText.entries(text, name: "m.jsonl")
        #expect(entries.count == 3)
        #expect(entries[0].value?.values[.src] == "first.jpg")
        #expect(entries[1].failureValue?.row == 2)
        #expect(entries[2].value == ManifestRecord(line: 3, values: [.src: "third.jpg"]))
    }

    @Test("An unknown key fails its row, naming the key and the known ones")
    func unknownKey() throws {
        let text = #"{"src":"a.jpg","tint":"red"}"# + "\n" + #"{"src":"b.jpg"}"# + "\n"
        let entries = try ManifestText.entries(text, name: "m.jsonl")
        let error = try #require(entries.first?.failureValue)
        #expect(error.row == 1)
        #expect(error.column == "tint")
        #expect(error.description.contains("src, out, width"))
        #expect(entries.count == 2 && entries[1].value != nil)
    }

    @Test("Arrays and objects as values fail their row")
    func nestedValues() throws {
        let text = #"{"src":["a.jpg"]}"# + "\n" + #"{"src":"b.jpg","crop":{"x":0}}"# + "\n"
        let entries = try ManifestText.entries(text, name: "m.jsonl")
        #expect(entries.map { $0.failureValue?.column } == ["src", "crop"])
    }

    @Test("Blank lines are skipped and counted; a BOM and CRLFs are tolerated")
    func blankLinesBOMAndCRLF() throws {
        let bytes = Data([0xEF, 0xBB, 0xBF])
            + Data((#"{"src":"a.jpg"}"# + "\r\n\r\n   \n" + #"{"src":"b.jpg"}"#).utf8)
        let records = try ManifestText.entries(bytes, name: "m.jsonl").map { try $0.get() }
        #expect(records.map(\.line) == [1, 4])
        #expect(records.map { $0.values[.src] } == ["a.jpg", "b.jpg"])
    }

    @Test("jsonLines: true reads JSON Lines whatever the extension; false reads CSV")
    func explicitFormat() throws {
        let text = #"{"src":"a.jpg"}"# + "\n"
        let asJSON = try ManifestText.entries(text, name: "m.csv", jsonLines: true)
        #expect(asJSON.first?.value?.values[.src] == "a.jpg")
        // As CSV, the same line is a header of unknown columns.
        #expect(throws: ManifestError.self) {
            _ = try ManifestText.entries(text, name: "m.jsonl", jsonLines: false)
        }
    }

    @Test("A JSON Lines row is turned into a request like a CSV row")
    func parsesLikeCSV() throws {
        let text = #"{"src":"a.jpg","size":"64x32","upscale":true,"quality":75}"# + "\n"
        let record = try #require(try ManifestText.entries(text, name: "m.jsonl").first?.get())
        let request = try RowParser(baseDirectory: "/base").parse(record).get()
        #expect(request.spec.box == TargetBox(width: 64, height: 32))
        #expect(request.spec.upscale)
        #expect(request.spec.quality == 75)
        #expect(request.source == .file("/base/a.jpg"))
        #expect(request.row == 1 && request.id == "1")
    }
}
