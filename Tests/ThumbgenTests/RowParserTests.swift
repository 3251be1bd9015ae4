import Foundation
import Testing
@testable import Thumbgen

/// `RowParser`: each column's accepted and refused values. A refused value fails the row with
/// an error naming the row, the column and the value.
@Suite("RowParser: column values")
struct RowParserTests {
    static let parser = RowParser(baseDirectory: "/manifests")

    /// Parses a row at line 7 with `src=a.jpg` plus `values`.
    static func parse(_ values: [ManifestColumn: String],
                      defaults: [ManifestColumn: String] = [:]) -> Result<ThumbnailRequest, RowError> {
        var cells = values
        if cells[.src] == nil { cells[.src] = "a.jpg" }
        return RowParser(defaults: defaults, baseDirectory: "/manifests")
            .parse(ManifestRecord(line: 7, values: cells))
    }

    /// The spec of a row that must parse.
    static func spec(_ values: [ManifestColumn: String]) throws -> ThumbnailSpec {
        try parse(values).get().spec
    }

    /// Checks that `column=value` fails the row, with an error naming row 7, column and value.
    static func expectRefused(_ column: ManifestColumn, _ value: String,
                              sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        guard case .failure(let error) = parse([column: value]) else {
            Issue.record("\(column.rawValue)=\(value) was accepted", sourceLocation: sourceLocation)
            return
        }
        #expect(error.row == 7, sourceLocation: sourceLocation)
        #expect(error.column == column.rawValue, sourceLocation: sourceLocation)
        #expect(error.value == value, sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix("row 7, column \(column.rawValue): '\(value)'"),
                sourceLocation: sourceLocation)
    }

    @Test("shrink_on_load: each mode, any case, by either header name; the default is balanced; others fail the row")
    func shrinkOnLoadColumn() throws {
        #expect(try Self.spec([:]).shrinkOnLoad == .balanced)
        for mode in ShrinkOnLoadMode.allCases {
            #expect(try Self.spec([.shrinkOnLoad: mode.rawValue.uppercased()]).shrinkOnLoad == mode)
        }
        #expect(ManifestColumn(header: "Shrink-On-Load") == .shrinkOnLoad)
        #expect(ManifestColumn(header: "shrink_on_load") == .shrinkOnLoad)
        #expect(try Self.parse([:], defaults: [.shrinkOnLoad: "fast"]).get().spec.shrinkOnLoad == .fast)
        #expect(try Self.parse([.shrinkOnLoad: "exact"], defaults: [.shrinkOnLoad: "fast"]).get().spec.shrinkOnLoad == .exact)
        Self.expectRefused(.shrinkOnLoad, "sharp")
    }

    @Test("A row with only src gets every default")
    func defaults() throws {
        let request = try Self.parse([:]).get()
        #expect(request.spec == ThumbnailSpec())
        #expect(request.spec.box == .unbounded && request.spec.fit == .inside)
        #expect(request.spec.gravity == .center && request.spec.kernel == .lanczos3)
        #expect(request.spec.format == .auto && request.spec.quality == nil)
        #expect(request.spec.background == .white && !request.spec.upscale)
        #expect(request.priority == .normal && request.maxAge == 0)
        #expect(request.outTemplate == "{name}-{w}x{h}.{ext}")
        #expect(request.id == "7" && request.row == 7)
    }

    @Test("size accepts WxH, W, xH and Wx", arguments: [
        ("256x128", TargetBox(width: 256, height: 128)), ("64", TargetBox(width: 64, height: nil)),
        ("x48", TargetBox(width: nil, height: 48)), ("32x", TargetBox(width: 32, height: nil)),
        (" 10X20 ", TargetBox(width: 10, height: 20)),
    ])
    func sizeForms(text: String, box: TargetBox) throws {
        #expect(try Self.spec([.size: text]).box == box)
    }

    @Test("size refuses everything else", arguments: ["x", "0x10", "10x0", "0", "-5x5", "axb", "10x10x10", "1.5x2", "10 x 10",
                                                     "99999999999999999999", "\u{0663}x4", "+5"])
    func badSizes(text: String) {
        Self.expectRefused(.size, text)
    }

    @Test("width and height set one side each, and override size's sides")
    func widthAndHeight() throws {
        #expect(try Self.spec([.width: "300"]).box == TargetBox(width: 300, height: nil))
        #expect(try Self.spec([.height: "200"]).box == TargetBox(width: nil, height: 200))
        #expect(try Self.spec([.width: "3", .height: "2"]).box == TargetBox(width: 3, height: 2))
        #expect(try Self.spec([.size: "100x100", .width: "50"]).box == TargetBox(width: 50, height: 100))
        for bad in ["0", "-1", "abc", "1.5", "9x9"] {
            Self.expectRefused(.width, bad)
            Self.expectRefused(.height, bad)
        }
    }

    @Test("fit, gravity, kernel and priority take their names, in any case")
    func choices() throws {
        for fit in Fit.allCases {
            #expect(try Self.spec([.fit: fit.rawValue.uppercased()]).fit == fit)
        }
        for gravity in Gravity.allCases {
            #expect(try Self.spec([.gravity: gravity.rawValue]).gravity == gravity)
        }
        for kernel in Kernel.allCases {
            #expect(try Self.spec([.kernel: kernel.rawValue]).kernel == kernel)
        }
        for priority in Priority.allCases {
            #expect(try Self.parse([.priority: priority.rawValue]).get().priority == priority)
        }
        #expect(try Self.spec([.gravity: "Top-Left"]).gravity == .topLeft)
    }

    @Test("Unknown fit, gravity, kernel or priority names fail, listing the known ones")
    func badChoices() throws {
        Self.expectRefused(.fit, "squash")
        Self.expectRefused(.gravity, "topleft")
        Self.expectRefused(.gravity, "north")
        Self.expectRefused(.kernel, "bicubic")
        Self.expectRefused(.priority, "urgent")
        let error = try #require(Self.parse([.fit: "squash"]).failureValue)
        #expect(error.reason.contains("inside, cover, contain, fill, none"))
    }

    @Test("crop takes x,y,w,h fractions inside the unit square")
    func crop() throws {
        #expect(try Self.spec([.crop: "0.25,0.5,0.5,0.5"]).crop
                == CropRect(x: 0.25, y: 0.5, width: 0.5, height: 0.5))
        #expect(try Self.spec([.crop: "0, 0, 1, 1"]).crop == CropRect(x: 0, y: 0, width: 1, height: 1))
        #expect(try Self.spec([.crop: "0.1,0.2,0.3,0.4"]).crop?.isValid == true)
    }

    @Test("crop refuses fractions out of range, empty areas and malformed lists", arguments: [
        "0.5,0.5,0.6,0.5", "0,0.6,1,0.5", "-0.1,0,0.5,0.5", "0,0,0,0.5", "0,0,0.5,0",
        "0,0,1.5,1", "0,0,1", "0,0,1,1,1", "a,b,c,d", "", "nan,0,1,1", "0;0;1;1",
    ])
    func badCrops(text: String) {
        if text.isEmpty {
            // An empty cell is an absent one, not a bad crop.
            #expect((try? Self.spec([.crop: text]))?.crop == nil)
        } else {
            Self.expectRefused(.crop, text)
        }
    }

    @Test("upscale takes true/false, yes/no, 1/0")
    func upscale() throws {
        for yes in ["true", "TRUE", "yes", "1"] { #expect(try Self.spec([.upscale: yes]).upscale) }
        for no in ["false", "No", "0"] { #expect(try !Self.spec([.upscale: no]).upscale) }
        Self.expectRefused(.upscale, "maybe")
        Self.expectRefused(.upscale, "2")
    }

    @Test("format takes every format name, jpg as jpeg, and auto")
    func format() throws {
        for format in OutputFormat.allCases {
            #expect(try Self.spec([.format: format.rawValue]).format == .fixed(format))
        }
        #expect(try Self.spec([.format: "jpg"]).format == .fixed(.jpeg))
        #expect(try Self.spec([.format: "JPG"]).format == .fixed(.jpeg))
        #expect(try Self.spec([.format: "auto"]).format == .auto)
        Self.expectRefused(.format, "bmp")
        Self.expectRefused(.format, "heic")
    }

    @Test("quality is a whole number from 1 to 100")
    func quality() throws {
        #expect(try Self.spec([.quality: "1"]).quality == 1)
        #expect(try Self.spec([.quality: "100"]).quality == 100)
        #expect(try Self.spec([.quality: " 42 "]).quality == 42)
        for bad in ["0", "101", "-5", "80.5", "high"] { Self.expectRefused(.quality, bad) }
    }

    @Test("background is #rrggbb or #rrggbbaa")
    func background() throws {
        #expect(try Self.spec([.background: "#FF8000"]).background
                == RGBAColor(red: 255, green: 128, blue: 0, alpha: 255))
        #expect(try Self.spec([.background: "#11223344"]).background
                == RGBAColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44))
        for bad in ["#fff", "ffffff", "#gggggg", "#1234567", "white", "#"] {
            Self.expectRefused(.background, bad)
        }
    }

    @Test("background refuses a sign among its hex digits")
    func backgroundSign() {
        // UInt32("+fffff", radix: 16) parses, so "#+fffff" passes the length check.
        Self.expectRefused(.background, "#+fffff")
    }

    @Test("max_age is a whole number of seconds, negative allowed")
    func maxAge() throws {
        #expect(try Self.parse([.maxAge: "3600"]).get().maxAge == 3600)
        #expect(try Self.parse([.maxAge: "-1"]).get().maxAge == -1)
        Self.expectRefused(.maxAge, "1h")
        Self.expectRefused(.maxAge, "1.5")
    }

    @Test("id names the row in reports; it defaults to the line number")
    func id() throws {
        #expect(try Self.parse([.id: "hero"]).get().id == "hero")
        #expect(try Self.parse([:]).get().id == "7")
    }
}

/// `RowParser` remembers the last `src` it resolved (a source's rows follow one another); what
/// it remembers must never leak into a row it does not fit.
@Suite("RowParser: the remembered source")
struct RowParserSourceMemoTests {
    static func location(_ parser: RowParser, _ src: String, line: Int = 2) throws -> Thumbgen.SourceLocation {
        try parser.parse(ManifestRecord(line: line, values: [.src: src])).get().source
    }

    @Test("Consecutive rows of one src, then others, then a copy with another folder: each resolved against its own")
    func memoKeyedByTextAndFolder() throws {
        let parser = RowParser(baseDirectory: "/manifests")
        #expect(try Self.location(parser, "a.jpg") == .file("/manifests/a.jpg"))
        #expect(try Self.location(parser, "a.jpg", line: 3) == .file("/manifests/a.jpg"))
        #expect(try Self.location(parser, "b.jpg", line: 4) == .file("/manifests/b.jpg"))
        #expect(try Self.location(parser, "https://example.com/a.jpg", line: 5)
                == .url(URL(string: "https://example.com/a.jpg")!))
        #expect(try Self.location(parser, "a.jpg", line: 6) == .file("/manifests/a.jpg"))
        // A copy shares the memo's box; its own folder still decides.
        var other = parser
        other.baseDirectory = "/elsewhere"
        #expect(try Self.location(other, "a.jpg", line: 7) == .file("/elsewhere/a.jpg"))
        #expect(try Self.location(parser, "a.jpg", line: 8) == .file("/manifests/a.jpg"))
    }

    @Test("A bad src after a good one still fails, naming its own row")
    func badAfterGood() throws {
        let parser = RowParser(baseDirectory: "/manifests")
        _ = try Self.location(parser, "https://example.com/a.jpg")
        guard case .failure(let error) = parser.parse(ManifestRecord(line: 9, values: [.src: "https://"])) else {
            Issue.record("a URL without a host was accepted")
            return
        }
        #expect(error.row == 9 && error.column == "src")
    }
}
