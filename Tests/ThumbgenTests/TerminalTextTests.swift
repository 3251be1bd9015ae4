import Foundation
import Testing
@testable import Thumbgen

/// Text from a manifest never reaches a terminal raw: control characters are escaped, long
/// values shortened, on standard error, in `-v` lines and on the contact sheet; the report keeps
/// the exact values. A cell longer than its column holds fails its row, naming the column.
@Suite("Terminal text: cells escaped and shortened wherever they are shown")
struct TerminalTextTests {
    @Test("Control characters become escapes; plain text is left alone",
          arguments: [
              ("plain photos/a.jpg", "plain photos/a.jpg"),
              ("a\u{1B}]0;PWNED\u{07}b", "a\\x1b]0;PWNED\\x07b"),
              ("\u{1B}[2J\u{1B}[31mred", "\\x1b[2J\\x1b[31mred"),
              ("nul\u{0}tab\tdel\u{7F}", "nul\\x00tab\\x09del\\x7f"),
              ("c1\u{85}\u{9B}31m", "c1\\u{85}\\u{9b}31m"),
              ("rtl\u{202E}gpj.exe", "rtl\\u{202e}gpj.exe"),
              ("line\nbreak\r", "line\\x0abreak\\x0d"),
              ("ünïcödé ✓ 写真", "ünïcödé ✓ 写真"),
          ])
    func escapes(text: String, shown: String) {
        #expect(TerminalText.safe(text) == shown)
        #expect(!TerminalText.safe(text).unicodeScalars.contains(where: TerminalText.needsEscape))
    }

    @Test("A long run is cut in its middle; a long line to its bound; newlines kept when asked")
    func shortens() {
        let path = "photos/" + String(repeating: "x", count: 5_000) + "/end.jpg"
        let shown = TerminalText.safe("row 3: \(path): no such file")
        #expect(shown.hasPrefix("row 3: photos/xxx"))
        #expect(shown.hasSuffix("/end.jpg: no such file"))
        #expect(shown.contains("…"))
        #expect(shown.count <= 7 + TerminalText.longestValue + 15)
        let many = Array(repeating: "word", count: 2_000).joined(separator: " ")
        #expect(TerminalText.safe(many).count == TerminalText.longestLine)
        #expect(TerminalText.value(String(repeating: "a b ", count: 100)).count == TerminalText.longestValue)
        #expect(TerminalText.safe("one\n\u{1B}two", keepingNewlines: true) == "one\n\\x1btwo")
    }

    /// Runs thumbgen and returns its exit status and the bytes of standard error as written,
    /// not as a String decodes them.
    static func rawStandardError(_ arguments: [String], in space: Workspace) async throws -> (Int32, [UInt8]) {
        let binary = try #require(TestPaths.thumbgen)
        let log = space.folder.file("stderr.raw")
        return try await OffPool.run {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["THUMBGEN_CACHE_DIR"] = space.cache.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return (process.terminationStatus, [UInt8](try Data(contentsOf: log)))
        }
    }

    @Test("A hostile manifest's cells reach standard error escaped, the report exact")
    func hostileCells() async throws {
        let space = try Workspace("terminal-text")
        try space.fixture(.quadrants(width: 120, height: 80), "a.jpg", as: .jpeg)
        let title = "../\u{1B}]0;PWNED\u{07}\u{1B}[2J.jpg"
        let red = "\u{1B}[31mforged line\u{1B}[0m"
        let long = String(repeating: "d/", count: 2_000) + "a.jpg"     // 4,005 bytes: a cell may hold it
        let huge = String(repeating: "s", count: 10_000) + ".jpg"      // over src's 8 KiB
        let manifest = CSV.manifest(["src", "id", "out", "fit"], [
            ["a.jpg", "r1", title, ""],
            ["a.jpg", red, "ok.jpg", "\u{1B}[2Jsquash"],
            [long, "r3", "l.jpg", ""],
            [huge, "r4", "h.jpg", ""],
            ["a.jpg", "r5", "nul\u{0}.jpg", ""],
            ["a.jpg", "r6", "fine.jpg", ""],
        ])
        let path = try space.folder.write(manifest, to: "manifest.csv").path
        let report = space.reportURL.path
        let (status, bytes) = try await Self.rawStandardError(
            [path, "--out", space.out.path, "--size", "32", "--report", report, "-v"], in: space)
        #expect(status == 1)
        let controls = bytes.filter { $0 < 0x20 && $0 != 0x0A || $0 == 0x7F }
        #expect(controls.isEmpty, "standard error holds control bytes \(controls)")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\\x1b]0;PWNED\\x07\\x1b[2J"), "\(text)")
        #expect(text.contains("\\x1b[2Jsquash"), "\(text)")
        #expect(text.contains("\\x00"), "\(text)")
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= TerminalText.longestLine + 20 }, "\(lines.map(\.count))")
        #expect(lines.contains { $0.contains("row 4") && $0.contains("…") }, "\(text)")
        let shown = try Report.read(space.reportURL)
        #expect(shown.row(3)?.id == red, "the report keeps the exact value")
        #expect(shown.row(4)?.src == long)
        let tooLong = try #require(shown.row(5))
        #expect(tooLong.error?.code == "invalid_row")
        #expect(tooLong.error?.message.contains("column src") == true, "\(String(describing: tooLong.error))")
        #expect(tooLong.error?.message.contains("10004 bytes") == true)
        #expect(lines.contains { $0.contains("row 5") && $0.contains("column src") && $0.count < 300 }, "\(text)")
        #expect(shown.row(7)?.status == "written")
    }

    @Test("The contact sheet shows escapes, not control characters")
    func contactSheet() async throws {
        let space = try Workspace("terminal-sheet")
        try space.fixture(.quadrants(width: 120, height: 80), "a.jpg", as: .jpeg)
        let manifest = CSV.manifest(["src", "id", "out"], [["a.jpg", "bell\u{07}\u{1B}[2J", "a.jpg"], ["gone.jpg", "g", "g.jpg"]])
        let html = space.folder.file("sheet.html")
        let run = try await space.run(manifest: manifest, ["--size", "32", "--html", html.path])
        #expect(run.status == 1)
        let page = try Data(contentsOf: html)
        #expect(!page.contains(0x1B) && !page.contains(0x07))
        #expect(String(decoding: page, as: UTF8.self).contains("bell\\x07\\x1b[2J"))
    }
}
