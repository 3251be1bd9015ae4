import Foundation
import Testing
@testable import Thumbgen

/// Formats are named from their magic bytes, in Swift: no libvips sniffer runs, so a file
/// that hangs a blocked loader's sniffer cannot hang the run.
@Suite("Format sniffing")
struct FormatSniffingTests {
    /// 118 bytes: a gzip stream of a tiny SVG followed by zero bytes. libvips 8.14's SVG
    /// sniffer inflates it in a loop that never ends (zlib keeps answering "stream end" while
    /// input remains), and `vips_foreign_find_load` runs that sniffer although svgload is
    /// blocked.
    static func spinningSVGZ() throws -> Data {
        let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>"#
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-c", "-n"]
        let input = Pipe(), output = Pipe()
        gzip.standardInput = input
        gzip.standardOutput = output
        try gzip.run()
        input.fileHandleForWriting.write(Data(svg.utf8))
        try input.fileHandleForWriting.close()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        return compressed + Data(repeating: 0, count: 40)
    }

    @Test("A file that spins a blocked loader's sniffer fails unsupported_format, and the run ends")
    func spinningSniffer() async throws {
        let space = try Workspace()
        _ = try space.folder.write(try Self.spinningSVGZ(), to: "spin.svgz")
        try space.fixture(RawImage.quadrants(width: 32, height: 32), "fine.png")
        let run = try await space.run(manifest: CSV.manifest(["src", "out"], [["spin.svgz", "a.png"], ["fine.png", "b.png"]]),
                                      timeout: .seconds(60))
        #expect(!run.result.timedOut, "the run hung in a sniffer")
        #expect(run.report?.row(2)?.error?.code == "unsupported_format")
        #expect(run.report?.row(3)?.status == "written")
    }

    @Test("The magic bytes name the same loader libvips 8.14 chose for every corpus file",
          .enabled(if: TestPaths.hasCorpora, "needs ../shared/corpora"))
    func agreesWithCatalogue() throws {
        let corpora = try #require(TestPaths.corpora)
        let catalogue = try String(contentsOf: corpora.appendingPathComponent("CATALOGUE.tsv"), encoding: .utf8)
        let lines = catalogue.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        let columns = try #require(lines.first).map(String.init)
        let pathColumn = try #require(columns.firstIndex(of: "path"))
        let loaderColumn = try #require(columns.firstIndex(of: "vips-loader"))
        let builtIn: Set<String> = ["jpegload", "pngload", "webpload", "gifload", "tiffload", "heifload", "jxlload"]
        var checked = 0, mismatches: [String] = []
        for fields in lines.dropFirst() where fields.count > loaderColumn {
            let path = corpora.appendingPathComponent(String(fields[pathColumn])).path
            guard let header = FormatSniffer.header(path: path) else { continue }
            // Files libvips could not read a header from (corrupt) name no loader to agree with.
            let expected = String(fields[loaderColumn])
            guard !expected.isEmpty else { continue }
            let sniffed = FormatSniffer.loader(forHeader: header)
            checked += 1
            if builtIn.contains(expected) ? sniffed != expected : sniffed != nil {
                mismatches.append("\(fields[pathColumn]): libvips \(expected), sniffed \(sniffed ?? "none")")
            }
        }
        #expect(checked > 1000)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }
}
