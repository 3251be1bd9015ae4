import Foundation
import Testing
@testable import Thumbgen

/// `CSVRecordCounter`, the progress display's total: it must count what `ManifestReader`
/// returns, however the CSV is quoted, broken into lines or padded with blank ones.
@Suite("CSVRecordCounter")
struct CSVRecordCounterTests {
    /// The number of entries (records and row errors) `ManifestReader` returns, and the
    /// counter's figure, for `text` saved as a file; nil when the reader rejects the whole
    /// manifest (a quote left open), which the counter does not judge.
    private func counts(_ text: String) throws -> (reader: Int, counter: Int?)? {
        let folder = try TemporaryDirectory("counter")
        let url = try folder.write(Data(text.utf8), to: "manifest.csv")
        var entries = 0
        do {
            let reader = try ManifestReader(path: url.path)
            while try reader.next() != nil { entries += 1 }
        } catch {
            return nil
        }
        return (entries, CSVRecordCounter.dataRows(path: url.path))
    }

    @Test("Quoted newlines, doubled quotes, CRLF, blank lines, a BOM and a last row without a newline",
          arguments: [
              "src,size\na.jpg,1\nb.jpg,2\n",
              "\u{FEFF}src,size\r\na.jpg,1\r\n\r\nb.jpg,2",
              "src,id\n\"multi\nline.jpg\",one\n\n\nnext.jpg,two\n\"x\n\ny.jpg\",\"say \"\"hi\"\"\"\n",
              "src,id\n\"\"\n,\n\"\",x\n\"a\"\"\nb\",y\n",
              "src\n",
          ])
    func agreesWithTheReader(text: String) throws {
        let found = try #require(try counts(text))
        #expect(found.counter == found.reader)
    }

    @Test("Agrees with the reader on generated manifests made of awkward pieces")
    func generated() throws {
        let pieces = ["a.jpg", ",", "\n", "\r\n", "\"", "\"\"", "\"q,\n\"", " ", "x\"y", "\n\n"]
        var generator = SystemRandomNumberGenerator()
        var judged = 0
        for _ in 0..<200 {
            var text = "src,id\n"
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                text += pieces.randomElement(using: &generator)!
            }
            if let found = try counts(text) {
                judged += 1
                #expect(found.counter == found.reader, "\(text.debugDescription)")
            }
        }
        // Most of them are whole manifests, so that the comparison is not vacuous.
        #expect(judged > 100)
    }

    @Test("A file that cannot be read has no count")
    func unreadable() {
        #expect(CSVRecordCounter.dataRows(path: "/nonexistent/manifest.csv") == nil)
    }
}
