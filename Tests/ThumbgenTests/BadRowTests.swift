import Foundation
import Testing
import Thumbgen

/// One manifest mixing good rows with every kind of bad one: each bad row fails alone, with
/// the right code and a message naming its source or column; the good rows are written.
@Suite("End to end: bad rows")
struct BadRowTests {
    /// The rows of the mixed manifest, by line, with the code each must end with (nil: written).
    static let rows: [(cells: [String], code: String?, mentions: String)] = [
        (["good.png", "", ""], nil, ""),                                         // line 2
        (["missing.png", "", ""], "source_not_found", "missing.png"),            // 3
        (["notes.txt", "", ""], "unsupported_format", "notes.txt"),              // 4
        (["half.jpg", "", ""], "decode_failed", "half.jpg"),                     // 5
        (["half.png", "", ""], "decode_failed", "half.png"),                     // 6
        (["good.png", "squash", ""], "invalid_row", "squash"),                   // 7
        (["good.png", "", "101"], "invalid_row", "quality"),                     // 8
        (["ftp://example.invalid/a.jpg", "", ""], "invalid_row", "ftp"),      // 9
        (["empty.jpg", "", ""], "unsupported_format", "empty.jpg"),              // 10
        (["folder", "", ""], "source_unreadable", "folder"),                     // 11
        (["", "", ""], "invalid_row", "src"),                                    // 12 (",," is not blank)
        (["good.jpg", "", ""], nil, ""),                                         // 13
    ]

    /// Checks that a truncated source failed with decode_failed.
    static func expectDecodeFailed(_ error: Report.Failure?, _ what: String,
                                   sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(error?.code == "decode_failed", "\(what): \(String(describing: error))",
                sourceLocation: sourceLocation)
    }

    /// Writes the fixtures and the manifest (plus one row with too many fields, line 14).
    static func prepare(_ space: Workspace) throws -> String {
        let quad = RawImage.quadrants(width: 300, height: 200)
        try space.fixture(quad, "good.png")
        try space.fixture(quad, "good.jpg", as: .jpeg)
        try space.folder.write(FixtureBytes.truncated(try quad.encoded(as: .jpeg)), to: "half.jpg")
        try space.folder.write(FixtureBytes.truncated(try quad.encoded(as: .png, pngCompression: 0)),
                               to: "half.png")
        try space.folder.write("just some text, not a picture\n", to: "notes.txt")
        try space.folder.write(Data(), to: "empty.jpg")
        try FileManager.default.createDirectory(at: space.folder.file("folder"),
                                                withIntermediateDirectories: true)
        return CSV.manifest(["src", "fit", "quality"], rows.map(\.cells)) + "good.png,inside,80,extra\n"
    }

    @Test("Each bad row fails with its code and a message naming its source or column")
    func mixedManifest() async throws {
        let space = try Workspace()
        let run = try await space.run(manifest: try Self.prepare(space), ["--width", "100"])
        #expect(run.status == 1)
        let report = try #require(run.report)
        #expect(report.schema == 1)
        #expect(report.rows.map(\.row) == Array(2...14))
        for (line, expected) in zip(2..., Self.rows) {
            guard let row = report.row(line) else {
                Issue.record("no record for line \(line)")
                continue
            }
            if let code = expected.code {
                #expect(row.status == "failed", "line \(line): \(row.status)")
                if code == "decode_failed" {
                    Self.expectDecodeFailed(row.error, "line \(line)")
                } else {
                    #expect(row.error?.code == code, "line \(line): \(String(describing: row.error))")
                }
                #expect(row.error?.message.contains(expected.mentions) == true,
                        "line \(line): '\(row.error?.message ?? "")' does not name \(expected.mentions)")
                #expect(row.out == nil && row.sha256 == nil, "line \(line) names an output")
                #expect(run.result.stderr.contains("thumbgen: row \(line): "), "line \(line) not on stderr")
            } else {
                #expect(row.status == "written", "line \(line): \(String(describing: row.error))")
                #expect(row.width == 100)
            }
        }
        let extra = try #require(report.row(14))
        #expect(extra.error?.code == "invalid_row" && extra.error?.message.contains("4 fields") == true)
        #expect(report.summary.rows == 13 && report.summary.written == 2 && report.summary.failed == 11)
        #expect(report.summary.errors == ["source_not_found": 1, "unsupported_format": 2, "decode_failed": 2,
                           "invalid_row": 5, "source_unreadable": 1])
        // Only the two good rows left files, and nothing temporary remains.
        #expect(space.outputFiles == ["good-100x67.jpg", "good-100x67.png"])
        #expect(run.result.stderr.contains("13 rows: 2 written, 0 unchanged, 11 failed, 0 cancelled"))
    }

    @Test("--fail-on never exits 0 even when rows fail; -q prints nothing but run-wide errors")
    func failOnNever() async throws {
        let space = try Workspace()
        let run = try await space.run(manifest: try Self.prepare(space),
                                      ["--width", "100", "--fail-on", "never", "-q"])
        #expect(run.status == 0)
        #expect(run.report?.summary.failed == 11)
        // README: "-q, --quiet: print nothing but errors of the run as a whole".
        #expect(run.result.stderr.isEmpty, "\(run.result.stderr)")
    }

    /// A minimal 2×2 24-bit BMP: a real image in a format thumbgen does not read.
    static let bmp: Data = {
        var d = Data("BM".utf8)
        func le32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func le16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        le32(70); le32(0); le32(54)                        // file size, reserved, pixel offset
        le32(40); le32(2); le32(2); le16(1); le16(24)       // BITMAPINFOHEADER, 2x2, 24 bpp
        le32(0); le32(16); le32(2835); le32(2835); le32(0); le32(0)
        for _ in 0..<2 { d.append(contentsOf: [0, 0, 255, 0, 255, 0, 0, 0]) }  // 2 px + padding
        return d
    }()

    @Test("Images in formats thumbgen does not read (BMP, PPM) fail as unsupported_format")
    func otherFormats() async throws {
        let space = try Workspace()
        try space.folder.write(Self.bmp, to: "a.bmp")
        try space.folder.write(Data("P6\n2 2\n255\n".utf8) + Data(repeating: 128, count: 12), to: "b.ppm")
        let run = try await space.run(manifest: CSV.manifest(["src"], [["a.bmp"], ["b.ppm"]]))
        #expect(run.status == 1)
        for line in 2...3 {
            let error = run.report?.row(line)?.error
            #expect(error != nil, "line \(line) did not fail")
            #expect(error?.code == "unsupported_format", "line \(line): \(String(describing: error))")
        }
        #expect(space.outputFiles.isEmpty)
    }

    @Test("Truncated files from the corpora fail with decode_failed, never written grey",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func corporaTruncated() async throws {
        let corpora = try #require(TestPaths.corpora)
        let names = ["pillow/Tests/images/truncated_jpeg.jpg", "pillow/Tests/images/truncated_image.png",
                     "wuffs/test/data/peacock.default.truncated.jpeg",
                     "wuffs/test/data/peacock.progressive.truncated.jpeg",
                     "wuffs/test/data/hippopotamus.regular.truncated.png"]
        let present = names.filter {
            FileManager.default.fileExists(atPath: corpora.appendingPathComponent($0).path)
        }
        try #require(!present.isEmpty, "none of the truncated corpus files is present")
        let space = try Workspace()
        let rows = present.map { [corpora.appendingPathComponent($0).path] }
        let run = try await space.run(manifest: CSV.manifest(["src"], rows), ["--size", "64x64"])
        #expect(run.status == 1)
        for (line, name) in zip(2..., present) {
            Self.expectDecodeFailed(run.report?.row(line)?.error, name)
        }
        #expect(space.outputFiles.isEmpty)
    }
}
