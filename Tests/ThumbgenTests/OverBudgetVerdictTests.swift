import Foundation
import Testing
@testable import Thumbgen

/// `max_output_bytes`: a row whose output cannot fit even at `--min-quality` is remembered in
/// the cache under its output key, as an output is, so that the next run fails it without a
/// decode (`cache: hit`), until the source, the limit, the quality or the recipe changes.
@Suite("max_output_bytes: a row that cannot fit is remembered")
struct OverBudgetVerdictTests {
    /// A WebP of the noise in 100 bytes: over at every quality.
    static let manifest = CSV.manifest(["src", "out", "max_output_bytes"], [["noise.png", "tiny.webp", "100"]])

    /// A worker that opens `noise.png` crashes: a row of it that does not fail `crashed` was
    /// never decoded.
    static let noDecode = ["THUMBGEN_WORKER_FAULT": "noise.png:segv@open"]

    /// A workspace with the noise, its file an hour old (so that its stamp is on record after
    /// the first run, and the next plans it from the cache before any work).
    static func workspace() throws -> Workspace {
        let space = try Workspace("verdict")
        try space.fixture(OutputBudgetTests.noise, "noise.png")
        try age(space, seconds: 3600)
        return space
    }

    /// Sets the source's modification time `seconds` back: another stamp, the same bytes.
    static func age(_ space: Workspace, seconds: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -seconds)],
                                              ofItemAtPath: space.folder.file("noise.png").path)
    }

    /// The first run's row: it searched, and failed `over_budget`.
    static func searched(_ space: Workspace, _ arguments: [String] = [],
                         sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Report.Row {
        let run = try await space.run(manifest: manifest, arguments, sourceLocation: sourceLocation)
        #expect(run.status == 1, "\(run.result.stderr)", sourceLocation: sourceLocation)
        let row = try #require(run.report?.row(2), sourceLocation: sourceLocation)
        #expect(row.error?.code == "over_budget" && row.cache == nil, "\(row)", sourceLocation: sourceLocation)
        let message = row.error?.message ?? ""
        #expect(message.hasPrefix("noise.png: the output is ")
                && message.hasSuffix(" bytes even at quality 40 (--min-quality), over its max_output_bytes of 100"),
                "\(message)", sourceLocation: sourceLocation)
        return row
    }

    /// Whether `row` is `searched` again, answered by the cache: the same failure, a hit, no
    /// decode or render timed.
    static func isAnswered(_ row: Report.Row?, like searched: Report.Row) -> Bool {
        guard let row else { return false }
        return row.status == "failed" && row.error?.code == "over_budget" && row.error?.message == searched.error?.message
            && row.cache == "hit" && row.ms?["decode"] == nil && row.ms?["render"] == nil
    }

    @Test("A row that cannot fit fails over_budget twice with the same message, the second time from the cache: a hit, counted, no decode; cache verify keeps it")
    func remembered() async throws {
        let space = try Self.workspace()
        let searched = try await Self.searched(space)
        let again = try await space.run(manifest: Self.manifest, environment: Self.noDecode)
        #expect(again.status == 1, "\(again.result.stderr)")
        let row = again.report?.row(2)
        #expect(Self.isAnswered(row, like: searched), "\(String(describing: row))")
        #expect(row?.source_sha256 != nil && row?.source_sha256 == searched.source_sha256)
        let summary = try #require(again.report?.summary)
        #expect(summary.failed == 1 && summary.errors == ["over_budget": 1] && summary.cache?["hit"] == 1
                && summary.cache?["miss"] == 0, "\(summary)")
        #expect(!FileManager.default.fileExists(atPath: space.output("tiny.webp").path))

        // Not damage: verify keeps it, and it still answers.
        let verify = try await CLIRunner.run(["cache", "verify", "--cache-dir", space.cache.path], cacheDirectory: space.cache)
        #expect(verify.status == 0 && verify.stdout.hasSuffix("removed 0 (0 blobs, 0 outputs, 0 urls, 0 files, 0 recipes)\n"),
                "\(verify.stdout)\(verify.stderr)")
        let afterVerify = try await space.run(manifest: Self.manifest, environment: Self.noDecode)
        #expect(Self.isAnswered(afterVerify.report?.row(2), like: searched), "\(String(describing: afterVerify.report?.row(2)))")
    }

    @Test("A source hashed again (its stamp changed, its bytes not) is answered once identified, and one rendered in process is remembered too")
    func rememberedAfterIdentifying() async throws {
        let space = try Self.workspace()
        let searched = try await Self.searched(space, ["--isolation", "none"])
        try Self.age(space, seconds: 7200)
        let again = try await space.run(manifest: Self.manifest, environment: Self.noDecode)
        #expect(Self.isAnswered(again.report?.row(2), like: searched), "\(String(describing: again.report?.row(2)))")
        #expect(again.report?.summary.cache?["hit"] == 1)
    }

    @Test("A limit the output fits renders and writes it; a lower --min-quality searches again; --no-cache searches every time")
    func searchedAgain() async throws {
        let space = try Self.workspace()
        _ = try await Self.searched(space)
        // Another limit is another key: rendered and written.
        let fits = try await space.run(manifest: CSV.manifest(["src", "out", "max_output_bytes"], [["noise.png", "tiny.webp", "1M"]]))
        #expect(fits.status == 0, "\(fits.result.stderr)")
        #expect(fits.report?.row(2)?.status == "written" && fits.report?.row(2)?.cache == "miss")
        #expect(try Data(contentsOf: space.output("tiny.webp")).count == fits.report?.row(2)?.bytes)
        // Another floor is another key: the search runs (and the crash shows it decodes).
        let floor = try await space.run(manifest: Self.manifest, ["--min-quality", "20"], environment: Self.noDecode)
        #expect(floor.report?.row(2)?.error?.code == "crashed", "\(String(describing: floor.report?.row(2)))")
        // Without the cache, nothing is remembered: it searches, and fails as the first time.
        let uncached = try await space.run(manifest: Self.manifest, ["--no-cache"], environment: Self.noDecode)
        #expect(uncached.report?.row(2)?.error?.code == "crashed", "\(String(describing: uncached.report?.row(2)))")
        let plain = try await space.run(manifest: Self.manifest, ["--no-cache"])
        #expect(plain.report?.row(2)?.error?.code == "over_budget" && plain.report?.row(2)?.cache == nil)
        // The cache still answers the first limit.
        let cached = try await space.run(manifest: Self.manifest, environment: Self.noDecode)
        #expect(cached.report?.row(2)?.cache == "hit" && cached.report?.row(2)?.error?.code == "over_budget")
    }

    @Test("--dry-run and explain say the row will fail over_budget, and that the cache says so")
    func dryRunAndExplain() async throws {
        let space = try Self.workspace()
        let searched = try await Self.searched(space)
        let dry = try await space.run(manifest: Self.manifest, ["--dry-run"])
        let planned = dry.report?.row(2)
        #expect(planned?.status == "failed" && planned?.error?.code == "over_budget"
                && planned?.error?.message == searched.error?.message, "\(String(describing: planned))")
        let (result, explained) = try await ExplainTests.explain(space, ["2"])
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(explained.first, "\(result.stdout)")
        #expect(row.plan == "fail" && row.error?.code == "over_budget" && row.error?.message == searched.error?.message)
        #expect(row.cache?.output == "over_budget" && row.cache?.source == "stamp unchanged", "\(String(describing: row.cache))")
        #expect(row.part("max_output_bytes") == "100,mq=40" && row.key?.digest.count == 64)
        #expect(row.reasons.contains { $0.contains("the cache holds the verdict") }, "\(row.reasons)")
    }

    @Test("The remote cache is never sent a verdict nor asked for a key the local one answers; a machine without it searches once")
    func remoteIgnoresVerdicts() async throws {
        let nginx = try await NginxServer.start()
        let space = try Self.workspace()
        let remote = ["--remote-cache", nginx.cacheURL]
        let searched = try await Self.searched(space, remote)
        // The source is a local file and nothing was rendered: nothing to upload.
        #expect(!nginx.requests().contains { $0.method == "PUT" }, "\(nginx.requests())")
        #expect(nginx.storedFiles.isEmpty, "\(nginx.storedFiles)")
        try nginx.clearLog()
        let again = try await space.run(manifest: Self.manifest, remote, environment: Self.noDecode)
        #expect(Self.isAnswered(again.report?.row(2), like: searched), "\(String(describing: again.report?.row(2)))")
        #expect(nginx.requests().isEmpty, "\(nginx.requests())")
        // Another machine (an empty local cache) finds nothing on the remote, and searches.
        try FileManager.default.removeItem(at: space.cache)
        let elsewhere = try await space.run(manifest: Self.manifest, remote, environment: Self.noDecode)
        #expect(elsewhere.report?.row(2)?.error?.code == "crashed", "\(String(describing: elsewhere.report?.row(2)))")
    }

    @Test("A verdict is a record of its own: no output to any reader of outputs (the remote's included), whole to verify, gone with a damaged byte")
    func record() throws {
        let folder = try TemporaryDirectory("verdict-record")
        let cache = try ThumbnailCache(directory: folder.file("cache"))
        let key = String(repeating: "ab", count: 32)
        let verdict = OutputOverBudget(bytes: 412, limit: 100, quality: 40)
        cache.storeVerdict(verdict, key: key)
        guard case .overBudget(let found) = cache.outputs.lookup(key) else {
            Issue.record("no verdict under the key: \(cache.outputs.lookup(key))")
            return
        }
        #expect(found == verdict && cache.output(key) == nil && cache.outputs.lookup(key).answers)
        let entry = OutputIndex.verdictEntry(verdict)
        #expect(OutputIndex.decode(entry) == nil && CacheMaintenance.blob(namedBy: entry) == nil)
        var remote = entry
        remote["kind"] = "output"
        remote["key"] = key
        #expect(RemoteEntries.output(remote.encoded, key: key) == nil)
        let formatless = OutputOverBudget(bytes: 900, limit: 100, quality: nil)
        #expect(OutputIndex.decodeVerdict(OutputIndex.verdictEntry(formatless)) == formatless)
        #expect("\(formatless)" == "the output is 900 bytes (its format has no quality to lower), over its max_output_bytes of 100")
        // A verdict that does not say it is over its limit is not believed.
        #expect(OutputIndex.decodeVerdict(OutputIndex.verdictEntry(OutputOverBudget(bytes: 90, limit: 100, quality: 40))) == nil)
        var bad = entry
        bad["quality"] = "forty"
        #expect(OutputIndex.decodeVerdict(bad) == nil)
        let verified = CacheMaintenance(cache: cache).verify()
        #expect(verified.checked.outputs == 1 && verified.removed.outputs == 0)
        let path = cache.layout.path(.outputs, key)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.startIndex + 25] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        guard case .damaged = cache.outputs.lookup(key) else {
            Issue.record("a damaged verdict was read: \(cache.outputs.lookup(key))")
            return
        }
        #expect(CacheMaintenance(cache: cache).verify().removed.outputs == 1)
    }
}
