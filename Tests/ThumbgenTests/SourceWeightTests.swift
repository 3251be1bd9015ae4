import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// `--drop-larger` and `--budget`: a source's outputs weighed together before any is placed.
@Suite("Results: weighing a source's outputs (--drop-larger, --budget)")
struct SourceWeightTests {
    static func record(_ format: OutputFormat, width: Int, bytes: Int) -> OutputRecord {
        OutputRecord(sha256: String(repeating: "0", count: 64), width: width, height: width / 2, format: format, bytes: bytes)
    }

    @Test("Verdicts: a modern output no smaller than the JPEG (else PNG) of its width is dropped; the budget counts the rest in manifest order")
    func verdicts() {
        let outputs = [(2, Self.record(.webp, width: 320, bytes: 900)), (3, Self.record(.avif, width: 320, bytes: 1000)),
                       (4, Self.record(.jpeg, width: 320, bytes: 1000)), (5, Self.record(.webp, width: 640, bytes: 3000)),
                       (6, Self.record(.png, width: 640, bytes: 2500)), (7, Self.record(.jxl, width: 1280, bytes: 9000))]
        let dropped = SourceWeights.verdicts(outputs, dropLarger: true, budget: nil)
        // Equal counts as not smaller; a width with no fallback (1280) is left alone.
        #expect(dropped == [3: .dropped(fallback: .jpeg, bytes: 1000), 5: .dropped(fallback: .png, bytes: 2500)])
        let budgeted = SourceWeights.verdicts(outputs, dropLarger: true, budget: 5000)
        // 900 + 1000 + 2500 = 4400 fit; the JPEG XL would take them to 13,400.
        #expect(budgeted[7] == .overBudget(total: 13_400, budget: 5000) && budgeted.count == 3, "\(budgeted)")
        // The budget alone: 900 + 1000 + 1000 = 2900 fit; the WebP (to 5900), the PNG (to 5400)
        // and the JPEG XL each would pass it, and each is left out of the total.
        let budgetOnly = SourceWeights.verdicts(outputs, dropLarger: false, budget: 5000)
        #expect(budgetOnly.keys.sorted() == [5, 6, 7], "\(budgetOnly)")
    }

    @Test("Each row hears its verdict once its set is closed and every member has an output or has ended; sets split at their maximum")
    func sets() {
        let weights = SourceWeights(dropLarger: true, budget: nil, maximumRows: 3)
        let heard = Mutex<[Int: SourceWeights.Verdict]>([:])
        func weigh(_ row: Int, _ format: OutputFormat, _ bytes: Int) {
            weights.weigh(row: row, record: Self.record(format, width: 100, bytes: bytes)) { verdict in
                heard.withLock { $0[row] = verdict }
            }
        }
        let a = SourceLocation.file("/a.png"), b = SourceLocation.file("/b.png")
        weights.join(row: 2, source: a)
        weights.join(row: 3, source: a)
        weigh(2, .webp, 50)
        weigh(3, .jpeg, 40)
        // The set is open (another row of a may follow): nobody hears yet.
        #expect(heard.withLock { $0.isEmpty })
        weights.join(row: 4, source: a)
        weights.ended(row: 4)  // failed without an output
        // Row 4 made the set three rows, its maximum: row 5 starts the next, closing it.
        weights.join(row: 5, source: a)
        #expect(heard.withLock { $0 } == [2: .dropped(fallback: .jpeg, bytes: 40), 3: .place])
        weights.join(row: 6, source: b)
        // Row 5's set (a's second) is closed by b's first row, and waits for row 5 only.
        weigh(5, .avif, 10)
        #expect(heard.withLock { $0[5] } == .place)
        weigh(6, .webp, 10)
        #expect(heard.withLock { $0[6] } == nil)
        weights.close()
        #expect(heard.withLock { $0[6] } == .place)
        // A row that never joined is placed at once.
        weigh(99, .webp, 1)
        #expect(heard.withLock { $0[99] } == .place)
    }

    /// A folder with a noise image (where AVIF at quality 90 comes out larger than JPEG) and a
    /// smooth gradient (where it does not), rendered at 160 and 320 in WebP, AVIF and JPEG.
    static func render(_ space: Workspace, _ extra: [String]) async throws -> CLIResult {
        try await CLIRunner.run(["render", "photos", "--out", "out", "--size", "160,320", "--format", "webp,avif,jpeg",
                                 "--quality", "90", "--report", "report.json", "--index", "index.json"] + extra,
                                in: space.folder.url, cacheDirectory: space.cache)
    }

    static func photos() throws -> Workspace {
        let space = try Workspace("weights")
        var generator = PlanPropertyTests.SeededGenerator(state: 7)
        let noise = (0..<(320 * 200)).map { _ in
            Colour(r: .random(in: 0...255, using: &generator), g: .random(in: 0...255, using: &generator),
                   b: .random(in: 0...255, using: &generator))
        }
        try space.fixture(RawImage(width: 320, height: 200) { x, y in noise[y * 320 + x] }, "photos/noise.png")
        try space.fixture(RawImage(width: 320, height: 200) { x, y in
            Colour(r: UInt8(x * 255 / 319), g: UInt8(y * 255 / 199), b: 128)
        }, "photos/smooth.png")
        return space
    }

    @Test("--drop-larger: the AVIF of fine noise at quality 90, larger than its JPEG, is not written, not in the index, and its row says dropped with both sizes; a warm run says the same")
    func dropLarger() async throws {
        let space = try Self.photos()
        for pass in ["cold", "warm"] {
            let run = try await Self.render(space, ["--drop-larger"])
            #expect(run.status == 0, "\(pass): \(run.stderr)")
            #expect(run.stderr.contains("2 dropped (larger than their fallback)"), "\(pass): \(run.stderr)")
            let report = try Report.read(space.folder.file("report.json"))
            let dropped = report.rows.filter { $0.status == "dropped" }
            #expect(dropped.map(\.format) == ["avif", "avif"] && dropped.allSatisfy { $0.src.hasSuffix("noise.png") },
                    "\(pass): \(dropped.map { "\($0.src) \($0.format ?? "")" })")
            for row in dropped {
                let fallback = try #require(row.fallback)
                let jpeg = try #require(report.rows.first { $0.src == row.src && $0.format == "jpeg" && $0.width == row.width })
                #expect(fallback.format == "jpeg" && fallback.bytes == jpeg.bytes && (row.bytes ?? 0) >= fallback.bytes,
                        "\(pass): \(row.bytes ?? 0) against \(fallback.bytes)")
                #expect(row.out == nil)
            }
            #expect(report.summary.dropped == 2)
            #expect(!space.outputFiles.contains { $0.hasPrefix("noise") && $0.hasSuffix(".avif") }, "\(space.outputFiles)")
            #expect(space.outputFiles.filter { $0.hasPrefix("smooth") }.count == 6)
            let index = try ReportSchemaTests.json(space.folder.file("index.json"))
            let noise = ImageIndexTests.formats(index, "photos/noise.png")
            #expect(noise["avif"] == nil && noise["jpeg"] != nil && ImageIndexTests.formats(index, "photos/smooth.png")["avif"] != nil)
            #expect(ImageIndexTests.html(index, "photos/noise.png")?.contains("image/avif") == false)
            if ReportSchemaTests.hasValidator {
                let problems = try #require(try ReportSchemaTests.violations(space.folder.file("report.json")))
                #expect(problems.isEmpty, "\(pass): \(problems.joined(separator: "\n"))")
            }
        }
        // thumbgen warm weighs the same way: a dropped row is fresh in the cache, not failed.
        let warm = try await CLIRunner.run(["warm", "photos", "--size", "160,320", "--format", "webp,avif,jpeg",
                                            "--quality", "90", "--drop-larger", "--report", "warm.json"],
                                           in: space.folder.url, cacheDirectory: space.cache)
        #expect(warm.status == 0, "\(warm.stderr)")
        let warmDropped = try Report.read(space.folder.file("warm.json")).rows.filter { $0.status == "dropped" }
        #expect(warmDropped.count == 2 && warmDropped.allSatisfy { $0.warm == "fresh" && $0.cache == "hit" },
                "\(warmDropped.map { "\($0.warm ?? "-") \($0.cache ?? "-")" })")
    }

    @Test("--budget: the rows that would take a source's outputs past it fail over_budget, unwritten, and the run exits 1; the other source is untouched")
    func budget() async throws {
        let space = try Self.photos()
        let free = try await Self.render(space, [])
        #expect(free.status == 0, "\(free.stderr)")
        let sizes = try Report.read(space.folder.file("report.json")).rows
        let noise = sizes.filter { $0.src.hasSuffix("noise.png") }
        // A budget the noise image's first three outputs fit in, and the fourth does not.
        let firstThree = noise.prefix(3).compactMap(\.bytes).reduce(0, +)
        let budget = firstThree + 1
        try FileManager.default.removeItem(at: space.out)
        let run = try await Self.render(space, ["--budget", String(budget)])
        #expect(run.status == 1, "\(run.stderr)")
        let report = try Report.read(space.folder.file("report.json"))
        let failed = report.rows.filter { $0.status == "failed" }
        #expect(!failed.isEmpty && failed.allSatisfy { $0.error?.code == "over_budget" && $0.src.hasSuffix("noise.png") },
                "\(failed.map { "\($0.row) \($0.error?.message ?? "")" })")
        #expect(failed.first?.row == noise[3].row, "\(failed.map(\.row))")
        #expect(failed.first?.error?.message.contains("over --budget \(budget)") == true)
        let written = report.rows.filter { $0.status == "written" && $0.src.hasSuffix("noise.png") }
        #expect(written.compactMap(\.bytes).reduce(0, +) <= budget)
        for row in failed { #expect(!space.outputFiles.contains { $0 == (noise.first { $0.row == row.row }?.out ?? "") }) }
        #expect(report.rows.filter { $0.src.hasSuffix("smooth.png") }.allSatisfy { $0.status == "written" })
        let refused = try await Self.render(space, ["--budget", "lots"])
        #expect(refused.status == 2, "\(refused.stderr)")
    }
}
