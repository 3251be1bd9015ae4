import Foundation
import Testing
@testable import Thumbgen

/// Bytes that are not UTF-8, in a manifest cell or a file name a walk finds, fail their row
/// (`invalid_row`, naming the column or the path, the bad bytes shown as `\xff`): nothing is
/// written under a name with a replacement character, and the other rows go on.
@Suite("Invalid UTF-8: a row fails naming it, the others go on")
struct InvalidUTF8Tests {
    @Test("Well-formed sequences are kept, every other byte escaped (The Unicode Standard, table 3-7)",
          arguments: [
              ([0x61, 0xFF, 0xFE, 0x32], "a\\xff\\xfe2"),
              ([0x62, 0xC3, 0x28], "b\\xc3("),
              ([0xC0, 0x80], "\\xc0\\x80"),                 // overlong NUL
              ([0xE0, 0x80, 0x80], "\\xe0\\x80\\x80"),      // overlong
              ([0xED, 0xA0, 0x80], "\\xed\\xa0\\x80"),      // a surrogate
              ([0xF4, 0x90, 0x80, 0x80], "\\xf4\\x90\\x80\\x80"),  // past U+10FFFF
              ([0xE5, 0x86, 0x99, 0xC3, 0xA9, 0xF0, 0x9F, 0x93, 0xB7], "写é📷"),
              ([0xE5, 0x86], "\\xe5\\x86"),                 // cut short
          ] as [([UInt8], String)])
    func escaping(bytes: [UInt8], shown: String) {
        let (text, valid) = CellText.decode(bytes[...])
        #expect(text == shown)
        #expect(valid == (String(validating: bytes, as: UTF8.self) != nil))
    }

    /// Writes `bytes` as the manifest `name` and runs thumbgen on it.
    static func run(_ space: Workspace, _ bytes: [UInt8], name: String) async throws -> Workspace.Run {
        let url = try space.folder.write(Data(bytes), to: name)
        let result = try await CLIRunner.run([url.path, "--out", space.out.path, "--report", space.reportURL.path,
                                              "--size", "32"], cacheDirectory: space.cache)
        return Workspace.Run(result: result, report: try? Report.read(space.reportURL))
    }

    @Test("A CSV cell that is not UTF-8 fails its row naming the column", arguments: ["manifest.csv", "manifest.jsonl"])
    func manifestCell(name: String) async throws {
        let space = try Workspace("invalid-utf8")
        try space.fixture(.quadrants(width: 120, height: 80), "a.jpg", as: .jpeg)
        let csv = name.hasSuffix(".csv")
        var bytes: [UInt8] = csv ? Array("src,id,out\n".utf8) : []
        func row(_ id: [UInt8], _ out: [UInt8]) {
            if csv {
                bytes += Array("a.jpg,".utf8) + id + [0x2C] + out + [0x0A]
            } else {
                bytes += Array(#"{"src":"a.jpg","id":""#.utf8) + id + Array(#"","out":""#.utf8) + out + Array("\"}\n".utf8)
            }
        }
        row(Array("r1".utf8), Array("good.jpg".utf8))
        row([0x72, 0xFF, 0xFE, 0x32], Array("bad".utf8) + [0xC3, 0x28] + Array(".jpg".utf8))
        row(Array("r3".utf8), Array("b".utf8) + [0xE9] + Array("t".utf8) + [0xE9] + Array(".jpg".utf8))
        let run = try await Self.run(space, bytes, name: name)
        #expect(run.status == 1, "\(run.result.stderr)")
        let report = try #require(run.report)
        let first = csv ? 2 : 1
        #expect(report.row(first)?.status == "written")
        let bad = try #require(report.row(first + 1))
        #expect(bad.error?.code == "invalid_row")
        // A CSV names the first such column of its header; JSON Lines, whose keys have no order,
        // the first in the manifest columns' order (src, out, …, id).
        let column = csv ? "id" : "out"
        #expect(bad.error?.message.contains("column \(column)") == true, "\(String(describing: bad.error))")
        #expect(bad.id == "r\\xff\\xfe2", "the report shows the bytes escaped")
        let latin1 = try #require(report.row(first + 2))
        #expect(latin1.error?.code == "invalid_row")
        #expect(latin1.error?.message.contains("column out") == true)
        #expect(latin1.error?.message.contains("b\\xe9t\\xe9.jpg") == true, "\(String(describing: latin1.error))")
        #expect(space.outputFiles.filter { !$0.hasPrefix(".") } == ["good.jpg"], "\(space.outputFiles)")
        #expect(run.result.stderr.contains("row \(first + 1): column \(column)"), "\(run.result.stderr)")
        #expect(!run.result.stderr.contains("\u{FFFD}"))
    }

    @Test("A file whose name is not UTF-8 fails its one row in a walk, naming it; the manifest command leaves it out")
    func walkedName() async throws {
        let space = try Workspace("invalid-utf8-walk")
        let photos = space.folder.file("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let jpeg = try RawImage.quadrants(width: 120, height: 80).encoded(as: .jpeg)
        try jpeg.write(to: photos.appendingPathComponent("good.jpg"))
        // A Latin-1 name, as an old camera card or a zip from elsewhere leaves one.
        let name = Array(photos.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let made = name.withUnsafeBufferPointer { buffer -> Int32 in
            let path = buffer.map { CChar(bitPattern: $0) } + [0]
            return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        try #require(made >= 0)
        _ = jpeg.withUnsafeBytes { write(made, $0.baseAddress, $0.count) }
        close(made)

        let render = try await CLIRunner.run([photos.path, "--out", space.out.path, "--report", space.reportURL.path,
                                              "--size", "32,64"], cacheDirectory: space.cache)
        #expect(render.status == 1, "\(render.stderr)")
        let report = try Report.read(space.reportURL)
        let failed = report.rows.filter { $0.status == "failed" }
        #expect(failed.count == 1, "one row for the file, not one per size")
        #expect(failed.first?.error?.code == "invalid_row")
        #expect(failed.first?.src.hasSuffix("caf\\xe9.jpg") == true, "\(failed)")
        #expect(report.rows.filter { $0.status == "written" }.count == 2)
        #expect(render.stderr.contains("caf\\xe9.jpg"), "\(render.stderr)")

        let manifest = try await CLIRunner.run(["manifest", photos.path, "--size", "32"], cacheDirectory: space.cache)
        #expect(manifest.status == 2)
        #expect(manifest.stderr.contains("caf\\xe9.jpg"), "\(manifest.stderr)")
        #expect(manifest.stdout.contains("good.jpg") && !manifest.stdout.contains("caf"), "\(manifest.stdout)")
    }
}
