import Foundation
import Testing
@testable import Thumbgen

/// The planner's promise, drawn at random: for manifests and cache states made from a seed
/// (outputs cached or not, records and bytes damaged, files under `--out` equal, different or
/// gone, local sources touched or changed, URLs fresh, stale, never stored or their records
/// damaged, `--offline` or not), the dry run's plan for each row is what the render run then
/// does and reports.
///
/// Each row has a recipe of its own: a row whose output key an earlier row of the same run
/// makes may be served from that row's fresh output, which the dry run, planning against the
/// cache as it was, cannot know. Each URL is named once, for the same reason (a second row
/// would find the first row's download stored).
@Suite("Planner: the dry run's plan is what the run does")
struct PlanPropertyTests {
    /// A small deterministic generator (SplitMix64), so that a failing seed can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One manifest row as the generator draws it.
    struct Row {
        var src: String, size: Int, format: String, quality: String, maxAge: Int
        var cells: [String] { [src, String(size), format, quality, String(maxAge), "{name}-{w}x{h}-r{row}.{ext}"] }
    }

    static let columns = ["src", "size", "format", "quality", "max_age", "out"]
    static let locals = ["a.png", "b.jpg", "c.png"]
    /// A URL variant's server query and the `max_age` its rows use: fresh by the row, fresh
    /// by the headers, revalidated every run, and never stored.
    static let urlPolicies: [(query: String, maxAge: Int)] = [("x=1", 3600), ("max_age=3600", 0), ("x=2", 0), ("x=3", -1)]

    @Test("Dry run and run agree row by row", arguments: 1...12)
    func dryRunMatchesRun(seed: UInt64) async throws {
        var rng = SeededGenerator(state: seed &* 7919)
        let space = try Workspace("plan-property")
        try space.fixture(.quadrants(width: 120, height: 80), "a.png")
        try space.fixture(.quadrants(width: 90, height: 120), "b.jpg", as: .jpeg)
        try space.fixture(.quadrants(width: 64, height: 64), "c.png")
        try space.fixture(.quadrants(width: 100, height: 70), "q.jpg", as: .jpeg)
        // An hour old, so that their stamps go on record (a file changed within the last
        // second is hashed on every run).
        for name in Self.locals { try Self.age(space.folder.file(name)) }
        let server = try FaultServer(root: space.folder.url)
        let urls = Self.urlPolicies.indices.map { server.url("/img/q.jpg?\(Self.urlPolicies[$0].query)&seed=\(seed)") }

        let rows = Self.draw(&rng, urls: urls)
        // What an earlier run made: each row as it is, with another quality, or another size.
        let history = rows.map { row -> Row in
            var old = row
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<7: break
            case 7..<9: old.quality = old.quality == "70" ? "" : "70"
            default: old.size += 8
            }
            return old
        }
        let common = ["--allow-private-network"]
        let first = try await space.run(manifest: CSV.manifest(Self.columns, history.map(\.cells)), common)
        #expect(first.status == 0, "seed \(seed): \(first.result.stderr)")

        let offline = Int.random(in: 0..<5, using: &rng) == 0
        try Self.disturb(space, &rng)
        let manifest = CSV.manifest(Self.columns, rows.map(\.cells))
        let flags = common + (offline ? ["--offline"] : [])
        let dry = try await space.run(manifest: manifest, flags + ["--dry-run"])
        let run = try await space.run(manifest: manifest, flags)
        let planned = try #require(dry.report, "seed \(seed): \(dry.result.stderr)")
        let done = try #require(run.report, "seed \(seed): \(run.result.stderr)")
        #expect(planned.rows.count == rows.count && done.rows.count == rows.count)
        for line in 2...(rows.count + 1) {
            guard let plan = planned.row(line), let outcome = done.row(line) else { continue }
            let mismatch = Self.mismatch(plan, outcome)
            #expect(mismatch == nil, "seed \(seed), offline \(offline), row \(line) \(rows[line - 2]): \(mismatch ?? "")")
        }
    }

    @Test("Offline: a URL with no cache yet, or with a damaged stored body to render from, fails not_cached in both")
    func offlineEdges() async throws {
        let space = try Workspace("plan-offline")
        try space.fixture(.quadrants(width: 100, height: 70), "q.jpg", as: .jpeg)
        let server = try FaultServer(root: space.folder.url)
        let url = server.url("/img/q.jpg?max_age=3600")
        let manifest = CSV.manifest(["src", "size"], [[url, "32"]])
        let flags = ["--allow-private-network", "--offline"]
        // No cache directory yet.
        let dryEmpty = try await space.run(manifest: manifest, flags + ["--dry-run"])
        let runEmpty = try await space.run(manifest: manifest, flags)
        #expect(dryEmpty.report?.row(2)?.error?.code == "not_cached", "\(dryEmpty.result.stderr)")
        #expect(runEmpty.report?.row(2)?.error?.code == "not_cached")

        // Stored, fresh, damaged; the row needs its pixels (a size not made before).
        let filled = try await space.run(manifest: manifest, ["--allow-private-network"])
        let digest = try #require(filled.report?.row(2)?.source_sha256)
        try CacheFiles.flipByte(of: CacheFiles(root: space.cache).blob(digest), at: 200)
        let other = CSV.manifest(["src", "size"], [[url, "48"]])
        let dry = try await space.run(manifest: other, flags + ["--dry-run"])
        let run = try await space.run(manifest: other, flags)
        #expect(dry.report?.row(2)?.error?.code == "not_cached", "\(dry.result.stderr)")
        #expect(run.report?.row(2)?.error?.code == "not_cached", "\(run.result.stderr)")
        #expect(try server.counts().total == 1)  // the filling run's download only
    }

    /// Six to ten rows over the local files and the URL variants, each with a recipe of its
    /// own, each URL at most once.
    static func draw(_ rng: inout SeededGenerator, urls: [String]) -> [Row] {
        var rows: [Row] = []
        var usedURLs = Set<Int>()
        var recipes = Set<String>()
        let count = Int.random(in: 6...10, using: &rng)
        while rows.count < count {
            let pickURL = Int.random(in: 0..<3, using: &rng) == 0
            var row = Row(src: locals.randomElement(using: &rng)!, size: [16, 24, 32].randomElement(using: &rng)!,
                          format: ["png", "jpeg", "webp"].randomElement(using: &rng)!,
                          quality: ["", "70"].randomElement(using: &rng)!, maxAge: 0)
            if pickURL {
                let index = Int.random(in: 0..<urls.count, using: &rng)
                guard !usedURLs.contains(index) else { continue }
                usedURLs.insert(index)
                row.src = urls[index]
                row.maxAge = urlPolicies[index].maxAge
            }
            guard recipes.insert("\(row.src) \(row.size) \(row.format) \(row.quality)").inserted else { continue }
            rows.append(row)
        }
        return rows
    }

    /// Damages and changes what the earlier run left, at random.
    static func disturb(_ space: Workspace, _ rng: inout SeededGenerator) throws {
        let files = CacheFiles(root: space.cache)
        for file in space.outputFiles.map(space.output) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<3: try FileManager.default.removeItem(at: file)
            case 3: try Data("not the output".utf8).write(to: file)
            default: break
            }
        }
        for record in files.entries("outputs") where Int.random(in: 0..<7, using: &rng) == 0 {
            try CacheFiles.flipByte(of: record, at: 30)
        }
        for blob in files.entries("blobs") where Int.random(in: 0..<10, using: &rng) == 0 {
            try CacheFiles.flipByte(of: blob)
        }
        for record in files.entries("urls") where Int.random(in: 0..<7, using: &rng) == 0 {
            try CacheFiles.flipByte(of: record, at: 30)
        }
        for name in locals {
            let file = space.folder.file(name)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0:  // the same bytes again: a new stamp, the same digest
                let bytes = try Data(contentsOf: file)
                try FileManager.default.removeItem(at: file)
                try bytes.write(to: file)
                try age(file)
            case 1:  // other pixels
                try space.fixture(.quadrants(width: 50, height: 40), name, as: name.hasSuffix(".jpg") ? .jpeg : .png)
            default:
                break
            }
        }
    }

    /// Moves `file`'s modification time an hour back.
    static func age(_ file: URL) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)],
                                              ofItemAtPath: file.path)
    }

    /// How `outcome` differs from what `plan` said, or nil when it is what was planned.
    static func mismatch(_ plan: Report.Row, _ outcome: Report.Row) -> String? {
        if plan.status == "failed" || outcome.status == "failed" {
            return plan.error?.code == outcome.error?.code ? nil
                : "planned \(plan.status) \(plan.error?.code ?? "-"), ran \(outcome.status) \(outcome.error?.code ?? "-")"
        }
        let what = "planned \(plan.plan ?? "-"), ran \(outcome.status) cache \(outcome.cache ?? "-") "
            + "http \(outcome.http.map { String($0.status) } ?? "none")"
        switch plan.plan {
        case "keep":
            guard outcome.status == "unchanged", outcome.cache == "hit", outcome.http == nil else { return what }
        case "reuse":
            guard outcome.status == "written", outcome.cache == "hit", outcome.http == nil else { return what }
        case "render":
            guard outcome.cache == "miss", outcome.http == nil else { return what }
        case "fetch":
            guard outcome.http != nil else { return what }
        default:
            return what
        }
        if plan.plan != "fetch", plan.source_sha256 != outcome.source_sha256 {
            return what + ": source \(plan.source_sha256 ?? "-") then \(outcome.source_sha256 ?? "-")"
        }
        if plan.plan == "keep" || plan.plan == "reuse", plan.sha256 != outcome.sha256 || plan.out != outcome.out {
            return what + ": output \(plan.out ?? "-") \(plan.sha256 ?? "-") then \(outcome.out ?? "-") \(outcome.sha256 ?? "-")"
        }
        return nil
    }
}
