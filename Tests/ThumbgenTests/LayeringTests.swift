import Foundation
import Testing

/// C stays in the wrapper files: the library reaches libvips only from `Vips*.swift` files and
/// libcurl only from `Fetching/Curl*.swift`, so that everything else deals in Swift types and a
/// C resource has one place where it is owned and freed. Read from the source tree, textually.
@Suite("Layering")
struct LayeringTests {
    /// The library's sources, found from this file (`Tests/ThumbgenTests/LayeringTests.swift`).
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/Thumbgen").standardizedFileURL

    /// libvips' functions and constants, `CVips`' shims (libcurl's shims, `tg_curl_`, are
    /// `curlSymbols`' business, the Linux ones, `tg_sys_`, `systemSymbols`', the WebP planes,
    /// `webpSymbols`', and the JPEG coefficients, `jpegScaleSymbols`') and the GLib calls that
    /// free what libvips hands out; `CJPEGWriter`, which writes libvips images.
    static let vipsSymbols = #"vips_|tg_(?!curl_|sys_|webp_|jpeg_coefficients_|png_|sqlite_|gumbo_)[a-z]|VIPS_|g_free|g_object|import CJPEGWriter"#
    /// `CSystem`: its module and its shims.
    static let systemSymbols = #"import CSystem|tg_sys_"#
    /// `CWebPScale`: its module and its functions.
    static let webpSymbols = #"import CWebPScale|tg_webp_|tg_area_"#
    /// `CJPEGScale`: its module and its functions.
    static let jpegScaleSymbols = #"import CJPEGScale|tg_jpeg_coefficients_"#
    /// `CPNGDecode`: its module and its functions.
    static let pngSymbols = #"import CPNGDecode|tg_png_"#
    /// `CResample`: its module and its functions.
    static let resampleSymbols = #"import CResample|tg_resample_"#
    /// `CSQLite`: its module, SQLite's functions and constants, and the shim.
    static let sqliteSymbols = #"import CSQLite|sqlite3_|SQLITE_|tg_sqlite_"#
    /// `CGumbo`: its module, gumbo's functions and constants, and the shim.
    static let gumboSymbols = #"import CGumbo|gumbo_|GUMBO_|tg_gumbo_"#
    /// A read of `VipsImageRef.pointer` (no other type in the library has a `pointer`).
    static let imagePointer = #"\.pointer\b"#
    /// libcurl's functions, shims, types and constants.
    static let curlSymbols = #"curl_|CURL"#

    /// One source line that matched where it should not.
    struct Hit: CustomStringConvertible {
        /// The file, relative to Sources/Thumbgen.
        var file: String
        /// The line number, from 1.
        var line: Int
        /// The line, trimmed.
        var text: String

        /// `file:line: text`, as compilers print a place.
        var description: String { "\(file):\(line): \(text)" }
    }

    /// Lines matching `pattern` in the Swift files under Sources/Thumbgen that `allowed` (given
    /// the path relative to Sources/Thumbgen) does not exempt; comment lines are skipped, since
    /// they may name the C they explain. `scanned` counts the files read.
    static func hits(of pattern: String, outside allowed: (String) -> Bool) throws
        -> (hits: [Hit], scanned: Int)
    {
        let regex = try Regex(pattern)
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        var found: [Hit] = []
        for file in files where !allowed(file) {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if !trimmed.hasPrefix("//") && trimmed.contains(regex) {
                    found.append(Hit(file: file, line: index + 1, text: trimmed))
                }
            }
        }
        return (found, files.count)
    }

    /// Whether `file` (relative to Sources/Thumbgen) is a libvips wrapper file.
    static func isVipsWrapper(_ file: String) -> Bool {
        (file as NSString).lastPathComponent.hasPrefix("Vips")
    }

    /// Whether `file` (relative to Sources/Thumbgen) is a libcurl wrapper file.
    static func isCurlWrapper(_ file: String) -> Bool {
        file.hasPrefix("Fetching/") && (file as NSString).lastPathComponent.hasPrefix("Curl")
    }

    @Test("The patterns find C in the wrapper files, so a clean result means something")
    func patternsSeeTheWrappers() throws {
        let vips = try Self.hits(of: Self.vipsSymbols) { !Self.isVipsWrapper($0) }
        #expect(vips.scanned > 50, "only \(vips.scanned) Swift files under \(Self.sources.path)")
        #expect(vips.hits.contains { $0.file.hasSuffix("Imaging/VipsImageRef+Loading.swift") })
        #expect(try Self.hits(of: Self.imagePointer) { !Self.isVipsWrapper($0) }.hits.count > 0)
        #expect(try Self.hits(of: Self.curlSymbols) { !Self.isCurlWrapper($0) }.hits.count > 0)
    }

    @Test("libvips C symbols appear only in Vips*.swift files")
    func vipsStaysInItsWrappers() throws {
        let found = try Self.hits(of: Self.vipsSymbols, outside: Self.isVipsWrapper).hits
        let lines = found.map(\.description).joined(separator: "\n")
        #expect(found.isEmpty, "libvips C outside the Vips*.swift files:\n\(lines)")
    }

    @Test("VipsImageRef.pointer is read only in Vips*.swift files")
    func imagePointerStaysInItsWrappers() throws {
        let found = try Self.hits(of: Self.imagePointer, outside: Self.isVipsWrapper).hits
        let lines = found.map(\.description).joined(separator: "\n")
        #expect(found.isEmpty, "VipsImageRef.pointer outside the Vips*.swift files:\n\(lines)")
    }

    @Test("libcurl C symbols appear only in Fetching/Curl*.swift files")
    func curlStaysInItsWrappers() throws {
        let found = try Self.hits(of: Self.curlSymbols, outside: Self.isCurlWrapper).hits
        let lines = found.map(\.description).joined(separator: "\n")
        #expect(found.isEmpty, "libcurl C outside the Fetching/Curl*.swift files:\n\(lines)")
    }

    /// Whether `file` (relative to Sources/Thumbgen) may make the workers' Linux calls.
    static func isSystemWrapper(_ file: String) -> Bool {
        ["Executing/Workers/WorkerHygiene.swift", "Executing/Workers/WorkerProcess.swift"].contains(file)
    }

    @Test("CSystem's Linux calls appear only in WorkerHygiene and WorkerProcess")
    func systemCallsStayInTheirWrappers() throws {
        #expect(try Self.hits(of: Self.systemSymbols) { !Self.isSystemWrapper($0) }.hits.count >= 2)
        let found = try Self.hits(of: Self.systemSymbols, outside: Self.isSystemWrapper).hits
        let lines = found.map(\.description).joined(separator: "\n")
        #expect(found.isEmpty, "CSystem outside its wrapper files:\n\(lines)")
    }

    /// The C targets with one owner file each: the pattern of their symbols, and the owner.
    static let ownedTargets: [(name: String, symbols: String, owner: String)] = [
        ("CWebPScale", webpSymbols, "Imaging/WebPPlanes.swift"),
        ("CJPEGScale", jpegScaleSymbols, "Imaging/JPEGCoefficients.swift"),
        ("CPNGDecode", pngSymbols, "Imaging/PNGPixels.swift"),
        ("CResample", resampleSymbols, "Imaging/VipsImageRef+Resample.swift"),
        ("CSQLite", sqliteSymbols, "Caching/Store/IndexDatabase.swift"),
        ("CGumbo", gumboSymbols, "Site/HTMLScan.swift"),
    ]

    /// Whether `file` is `owner` or one of its extension files (`Owner+Part.swift`).
    static func isOwned(_ file: String, by owner: String) -> Bool {
        file == owner || (file.hasPrefix(owner.dropLast(".swift".count) + "+") && file.hasSuffix(".swift"))
    }

    @Test("CWebPScale is called only from Imaging/WebPPlanes.swift, CJPEGScale only from Imaging/JPEGCoefficients.swift, CResample only from Imaging/VipsImageRef+Resample.swift, SQLite only from Caching/Store/IndexDatabase(+*).swift, gumbo only from Site/HTMLScan.swift",
          arguments: ownedTargets.indices)
    func decodersStayInTheirWrappers(_ index: Int) throws {
        let (name, symbols, owner) = Self.ownedTargets[index]
        #expect(try Self.hits(of: symbols) { !Self.isOwned($0, by: owner) }.hits.count >= 2)
        let found = try Self.hits(of: symbols, outside: { Self.isOwned($0, by: owner) }).hits
        let lines = found.map(\.description).joined(separator: "\n")
        #expect(found.isEmpty, "\(name) outside \(owner):\n\(lines)")
    }

    /// `scripts/layers` (run with `python3`), with `arguments`: its exit status and output.
    static func layers(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestPaths.packageRoot.appendingPathComponent("scripts/layers").path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test("Folders form layers: no two folders of Sources/Thumbgen name each other's types")
    func foldersFormLayers() throws {
        // The script sees the edges the layers rest on, so an empty check means something.
        let map = try Self.layers([])
        #expect(map.status == 0)
        #expect(map.output.contains("Executing ->") && map.output.contains("Imaging: "),
                "scripts/layers found no edges:\n\(map.output)")
        let check = try Self.layers(["--check"])
        #expect(check.status == 0 && check.output.isEmpty,
                "folders naming each other's types (ARCHITECTURE.md, Layers):\n\(check.output)")
    }
}
