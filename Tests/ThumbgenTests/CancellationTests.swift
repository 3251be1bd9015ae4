import Foundation
import Testing
import Thumbgen

/// SIGINT and SIGTERM in the middle of a long run: the run stops, writes its report with every
/// row it read (written or cancelled), leaves no temporary file, and exits 130 or 143.
@Suite("End to end: cancellation by signal")
struct CancellationTests {
    /// Far more rows than the admission window holds (128 on two cores), so that however late
    /// a loaded machine lets the test see the first output and send its signal, the run has not
    /// read them all (300 were once all done by then, beside the whole suite).
    static let rowCount = 2000

    /// Two 4000×3000 PNG sources and a manifest of `rowCount` rows over them, each with its
    /// own width so that every row is a separate render. With alpha, so that each row is
    /// resampled premultiplied by libvips' own operations: without it, the C resampler made
    /// 2,000 rows of an opaque source in less time than the test takes to see the first one.
    static func prepare(_ space: Workspace) throws -> URL {
        for i in 0..<2 {
            let small = RawImage(width: 400, height: 300, alpha: true) { x, y in
                Colour(r: UInt8((x + 80 * i) % 256), g: UInt8(y % 256), b: UInt8((x + y) % 256),
                       a: UInt8(128 + (x + y) % 128))
            }
            try space.folder.write(try small.scaledPNG(by: 10), to: "big\(i).png")
        }
        let rows = (0..<rowCount).map { ["big\($0 % 2).png", "r{row}.jpg", String(100 + $0 % 150)] }
        return try space.folder.write(CSV.manifest(["src", "out", "width"], rows), to: "manifest.csv")
    }

    /// Starts `thumbgen --jobs 1` and waits until at least one output is in place.
    static func startAndWaitForProgress(_ space: Workspace, manifest: URL) async throws -> CLIRunner {
        let runner = try CLIRunner([manifest.path, "--out", space.out.path, "--report",
                                    space.reportURL.path, "--jobs", "1"])
        try runner.start()
        // Watched off the concurrency pool (see OffPool): a pool busy with other suites woke
        // this loop only after the run had ended.
        try await OffPool.run {
            let deadline = ContinuousClock.now + .seconds(180)
            while runner.isRunning && ContinuousClock.now < deadline
                    && !space.outputFiles.contains(where: { !$0.hasPrefix(".") }) {
                usleep(10_000)
            }
        }
        return runner
    }

    /// Every file under `out/` whose name marks it as temporary.
    static func temporaryFiles(_ space: Workspace) -> [String] {
        space.outputFiles.filter { $0.hasSuffix(".tmp") || ($0.split(separator: "/").last?.hasPrefix(".") ?? false) }
    }

    @Test("The first signal cancels the run, which reports every row it read",
          arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func cancel(signal: Int32, status: Int32) async throws {
        let space = try Workspace("cancel")
        let manifest = try await OffPool.run { try Self.prepare(space) }  // 24 MP of PNG: off the pool
        let runner = try await Self.startAndWaitForProgress(space, manifest: manifest)
        try #require(runner.isRunning, "the run ended before any progress could be seen")
        runner.send(signal)
        let result = await runner.wait(timeout: .seconds(120))
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains("interrupted"))

        let report = try #require(try? Report.read(space.reportURL), "no report was written")
        let lines = report.rows.map(\.row)
        // No row lost: every row read is there, once, in manifest order. A manifest file's
        // rows run source by source (`big0.png`'s, on the even lines, then `big1.png`'s), so
        // the rows read are the first of that order.
        let runOrder = (0..<Self.rowCount).filter { $0 % 2 == 0 }.map { $0 + 2 }
            + (0..<Self.rowCount).filter { $0 % 2 == 1 }.map { $0 + 2 }
        #expect(lines == runOrder.prefix(lines.count).sorted())
        #expect(lines.count < Self.rowCount, "the run finished before it was cancelled")
        let statuses = Set(report.rows.map(\.status))
        #expect(statuses.isSubset(of: ["written", "cancelled"]), "\(statuses)")
        #expect(report.summary.written >= 1)
        #expect(report.summary.cancelled >= 1)
        #expect(report.summary.written + report.summary.cancelled == report.summary.rows)
        for row in report.rows where row.status == "cancelled" {
            #expect(row.error?.code == "cancelled" && row.out == nil, "line \(row.row)")
        }
        // Exactly the written rows' files are in place; nothing temporary remains.
        #expect(Self.temporaryFiles(space).isEmpty, "\(Self.temporaryFiles(space))")
        let written = report.rows.filter { $0.status == "written" }.compactMap(\.out).sorted()
        #expect(space.outputFiles == written)
        print("cancellation by signal \(signal): \(report.summary.written) written, "
              + "\(report.summary.cancelled) cancelled of \(report.summary.rows) rows read")
    }

    @Test("A second SIGINT exits at once with 130, leaving no temporary file")
    func secondInterrupt() async throws {
        let space = try Workspace("cancel2")
        let manifest = try await OffPool.run { try Self.prepare(space) }  // 24 MP of PNG: off the pool
        let runner = try await Self.startAndWaitForProgress(space, manifest: manifest)
        try #require(runner.isRunning, "the run ended before any progress could be seen")
        runner.send(SIGINT)
        // Wait until the first signal has been taken (its message is printed) before the second.
        let deadline = ContinuousClock.now + .seconds(30)
        while runner.isRunning && ContinuousClock.now < deadline && !(runner.stderrText.contains("interrupted")) {
            try await Task.sleep(for: .milliseconds(10))
        }
        runner.send(SIGINT)
        let result = await runner.wait(timeout: .seconds(60))
        #expect(result.status == 130, "\(result.stderr)")
        #expect(Self.temporaryFiles(space).isEmpty, "\(Self.temporaryFiles(space))")
    }
}
