import Foundation
import Testing
@testable import Thumbgen

/// `RowParser`: defaults from the command line (the row wins), `src` and `out`.
@Suite("RowParser: defaults, src and out")
struct RowParserDefaultsTests {
    static func parse(_ values: [ManifestColumn: String],
                      defaults: [ManifestColumn: String] = [:]) -> Result<ThumbnailRequest, RowError> {
        RowParserTests.parse(values, defaults: defaults)
    }

    @Test("Flags fill the cells a row leaves empty")
    func flagsFillGaps() throws {
        let defaults: [ManifestColumn: String] = [
            .size: "100x80", .fit: "cover", .gravity: "top", .crop: "0,0,0.5,0.5",
            .upscale: "true", .kernel: "nearest", .format: "webp", .quality: "55",
            .background: "#000000", .priority: "high",
        ]
        let request = try Self.parse([:], defaults: defaults).get()
        let spec = request.spec
        #expect(spec.box == TargetBox(width: 100, height: 80))
        #expect(spec.fit == .cover && spec.gravity == .top && spec.kernel == .nearest)
        #expect(spec.crop == CropRect(x: 0, y: 0, width: 0.5, height: 0.5))
        #expect(spec.upscale && spec.format == .fixed(.webp) && spec.quality == 55)
        #expect(spec.background == RGBAColor(red: 0, green: 0, blue: 0))
        #expect(request.priority == .high)
    }

    @Test("The row wins over the flag, column by column")
    func rowWins() throws {
        let defaults: [ManifestColumn: String] = [
            .fit: "cover", .gravity: "top", .upscale: "true", .kernel: "nearest",
            .format: "webp", .quality: "55", .background: "#000000", .priority: "high",
        ]
        let row: [ManifestColumn: String] = [
            .fit: "contain", .gravity: "bottom-right", .upscale: "false", .kernel: "cubic",
            .format: "png", .quality: "90", .background: "#ff0000", .priority: "low",
        ]
        let request = try Self.parse(row, defaults: defaults).get()
        #expect(request.spec.fit == .contain && request.spec.gravity == .bottomRight)
        #expect(!request.spec.upscale && request.spec.kernel == .cubic)
        #expect(request.spec.format == .fixed(.png) && request.spec.quality == 90)
        #expect(request.spec.background == RGBAColor(red: 255, green: 0, blue: 0))
        #expect(request.priority == .low)
    }

    @Test("A row that sets any size column ignores every size flag", arguments: [
        ([ManifestColumn.width: "50"], TargetBox(width: 50, height: nil)),
        ([.height: "40"], TargetBox(width: nil, height: 40)),
        ([.size: "x30"], TargetBox(width: nil, height: 30)),
        ([.size: "20x10", .height: "5"], TargetBox(width: 20, height: 5)),
    ])
    func sizeGoesTogether(row: [ManifestColumn: String], box: TargetBox) throws {
        let flags: [[ManifestColumn: String]] = [
            [.size: "100x100"], [.width: "100"], [.height: "100"], [.size: "100x100", .width: "70"],
        ]
        for defaults in flags {
            #expect(try Self.parse(row, defaults: defaults).get().spec.box == box, "flags \(defaults)")
        }
    }

    @Test("Size flags combine when the row sets none")
    func sizeFlagsCombine() throws {
        #expect(try Self.parse([:], defaults: [.width: "100", .height: "50"]).get().spec.box
                == TargetBox(width: 100, height: 50))
        #expect(try Self.parse([:], defaults: [.size: "100x100", .height: "50"]).get().spec.box
                == TargetBox(width: 100, height: 50))
    }

    @Test("A bad flag fails the rows that use it, naming the value; a row that overrides it is fine")
    func badFlag() throws {
        let error = try #require(Self.parse([:], defaults: [.quality: "0"]).failureValue)
        #expect(error.column == "quality" && error.value == "0")
        #expect(try Self.parse([.quality: "50"], defaults: [.quality: "0"]).get().spec.quality == 50)
        #expect(throws: RowError.self) { try Self.parse([:], defaults: [.size: "big"]).get() }
        #expect(try Self.parse([.width: "9"], defaults: [.size: "big"]).get().spec.box.width == 9)
    }

    @Test("src: relative paths resolve against the manifest's folder; file:// and absolute paths are kept")
    func sources() throws {
        func source(_ text: String) throws -> Thumbgen.SourceLocation {
            try Self.parse([.src: text]).get().source
        }
        #expect(try source("a.jpg") == .file("/manifests/a.jpg"))
        #expect(try source("sub/../b.png") == .file("/manifests/b.png"))
        #expect(try source("/abs/c.webp") == .file("/abs/c.webp"))
        #expect(try source("file:///abs/d%20e.jpg") == .file("/abs/d e.jpg"))
        #expect(try source("file://localhost/abs/f.jpg") == .file("/abs/f.jpg"))
        let remote = try source("https://example.com/img/g.jpg?x=1")
        guard case .url(let url) = remote else {
            Issue.record("https source parsed as \(remote)")
            return
        }
        #expect(url.host == "example.com")
        #expect(remote.stem == "g")
        #expect(try Self.parse([.src: " a.jpg "]).get().sourceText == "a.jpg")
    }

    @Test("src: missing, other schemes, remote file:// URLs and hostless URLs fail the row",
          arguments: ["ftp://example.com/a.jpg", "data:image/png;base64,AAAA",
                      "file://otherhost/a.jpg", "http://", "   "])
    func badSources(text: String) throws {
        let error = try #require(Self.parse([.src: text]).failureValue)
        #expect(error.column == "src")
        #expect(error.row == 7)
    }

    @Test("A record without src fails, naming the column")
    func missingSource() throws {
        let error = try #require(RowParser(baseDirectory: "/").parse(
            ManifestRecord(line: 3, values: [.width: "10"])).failureValue)
        #expect(error.column == "src" && error.row == 3)
        #expect(error.description.contains("missing"))
    }

    @Test("out: placeholders and subfolders are accepted", arguments: [
        "{name}.{ext}", "thumbs/{row}/{name}-{w}x{h}-{fit}.{ext}", "{hash8}.webp", "a/./b.jpg",
        "plain.jpg", ".hidden.png",
    ])
    func goodOut(template: String) throws {
        #expect(try Self.parse([.out: template]).get().outTemplate == template)
    }

    @Test("out: unknown placeholders, unbalanced braces, absolute paths and '..' fail the row",
          arguments: [
            ("{nope}.jpg", "{nope}"), ("{name.jpg", "brace"), ("name}.jpg", "brace"),
            ("/tmp/x.jpg", "absolute"), ("~/x.jpg", "absolute"), ("../x.jpg", ".."),
            ("a/../../x.jpg", ".."), ("a/..", ".."), ("dir/", "file name"), (".", "file name"),
          ])
    func badOut(template: String, reasonMentions: String) throws {
        let error = try #require(Self.parse([.out: template]).failureValue)
        #expect(error.column == "out" && error.value == template)
        #expect(error.reason.contains(reasonMentions), "\(error.reason)")
    }
}
