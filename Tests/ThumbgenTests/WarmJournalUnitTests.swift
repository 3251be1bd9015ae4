import Foundation
import Testing
@testable import Thumbgen

/// The warm journal inside one process: which rows it vouched for, and what it refuses.
@Suite("Warm journal: in process")
struct WarmJournalUnitTests {
    /// Runs `requests` through a pipeline writing to `out` with the cache at `cache`; the
    /// results in row order, and what the run's journal noted.
    static func run(_ requests: [ThumbnailRequest], out: URL, cache: URL) throws
        -> (results: [RowResult], counts: (kept: Int, fresh: Int)?)
    {
        var configuration = PipelineConfiguration(outputDirectory: out)
        configuration.cache = try ThumbnailCache(directory: cache)
        let collector = ResultCollector()
        let pipeline = try Pipeline(configuration: configuration, onResult: collector.add)
        requests.forEach(pipeline.submit)
        pipeline.waitUntilFinished()
        return (collector.all.sorted { $0.row < $1.row }, pipeline.planner.journal?.counts)
    }

    static func requests(_ folder: TemporaryDirectory) throws -> [ThumbnailRequest] {
        let url = try folder.write(try RawImage.quadrants(width: 90, height: 60).encoded(as: .png), to: "a.png")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 978_307_200)],
                                              ofItemAtPath: url.path)
        return [30, 20, 10].enumerated().map { index, width in
            var spec = ThumbnailSpec()
            spec.box = TargetBox(width: width, height: nil)
            return ThumbnailRequest(row: index + 2, id: String(index + 2), sourceText: "a.png", source: .file(url.path),
                                    outTemplate: "{name}-{w}x{h}.png", spec: spec)
        }
    }

    /// A folder with `requests`' source, and its `out` and cache after two runs a second apart:
    /// the second proved every row the slow way and wrote the journal. Its results too.
    static func journaled(_ label: String) async throws
        -> (folder: TemporaryDirectory, requests: [ThumbnailRequest], out: URL, cache: URL, proved: [RowResult])
    {
        let folder = try TemporaryDirectory(label)
        let requests = try Self.requests(folder)
        let (out, cache) = (folder.file("out"), folder.file("cache"))
        _ = try Self.run(requests, out: out, cache: cache)
        try await Task.sleep(for: .milliseconds(1100))
        let proved = try Self.run(requests, out: out, cache: cache)
        return (folder, requests, out, cache, proved.results)
    }

    @Test("The third run is served by the journal the second wrote, with the same results")
    func served() async throws {
        let folder = try TemporaryDirectory("journal")
        let requests = try Self.requests(folder)
        let (out, cache) = (folder.file("out"), folder.file("cache"))
        let first = try Self.run(requests, out: out, cache: cache)
        #expect(first.results.map(\.status) == [.written, .written, .written])
        #expect(first.counts?.kept == 0 && first.counts?.fresh == 0)
        try await Task.sleep(for: .milliseconds(1100))
        let second = try Self.run(requests, out: out, cache: cache)
        #expect(second.counts?.kept == 0 && second.counts?.fresh == 3)
        let third = try Self.run(requests, out: out, cache: cache)
        #expect(third.counts?.kept == 3 && third.counts?.fresh == 0)
        #expect(third.results.map(\.jsonRecord) == second.results.map(\.jsonRecord))

        // A journal whose bytes were damaged is not read: the slow path proves the rows again.
        let journal = try #require(WarmJournal(cache: try ThumbnailCache(directory: cache), outputDirectory: out))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: journal.path))
        bytes[bytes.count / 3] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: journal.path))
        let fourth = try Self.run(requests, out: out, cache: cache)
        #expect(fourth.counts?.kept == 0 && fourth.counts?.fresh == 3)
        #expect(fourth.results.map(\.jsonRecord) == second.results.map(\.jsonRecord))
    }

    @Test("A journal trusts its sources' files rows while the table's generation is the one it saw; once it moves, each row is checked on its own")
    func filesGeneration() async throws {
        // The folder is held to the end: it is removed with the value.
        let (folder, requests, out, cache, proved) = try await Self.journaled("journal-files")
        defer { withExtendedLifetime(folder) {} }
        #expect(try Self.run(requests, out: out, cache: cache).counts?.kept == 3)

        // Another process records another file: the generation moves, this source's row does not.
        let database = IndexDatabase(path: cache.path + "/index.db", readOnly: false) { _ in }
        #expect(database.transaction { transaction in
            transaction.execute("UPDATE generations SET value = value + 1 WHERE name = 'files'")
            transaction.execute("""
                INSERT INTO files (path, device, inode, size, mtime_s, mtime_ns, digest, written, last_used)
                VALUES ('/elsewhere/x.png', 1, 2, 3, 4, 5, ?, (SELECT value FROM generations WHERE name = 'files'), 0)
                """, [.text(String(repeating: "a", count: 64))])
        })
        let checked = try Self.run(requests, out: out, cache: cache)
        #expect(checked.counts?.kept == 3 && checked.counts?.fresh == 0)
        #expect(checked.results.map(\.jsonRecord) == proved.map(\.jsonRecord))

        // This source's row is written again: the journal no longer vouches for it.
        let source = try #require(requests.first.map { $0.source.description })
        #expect(database.transaction { transaction in
            transaction.execute("UPDATE generations SET value = value + 1 WHERE name = 'files'")
            transaction.execute("UPDATE files SET written = (SELECT value FROM generations WHERE name = 'files') WHERE path = ?",
                                [.text(source)])
        })
        database.close()
        let slow = try Self.run(requests, out: out, cache: cache)
        #expect(slow.counts?.kept == 0 && slow.counts?.fresh == 3)
        #expect(slow.results.map(\.jsonRecord) == proved.map(\.jsonRecord))
        #expect(try Self.run(requests, out: out, cache: cache).counts?.kept == 3)
    }

    @Test("A run that hashes a new file saves its journal with the generation its own writes made, and another process's write is not counted in")
    func ownWritesKeepTrust() async throws {
        let (folder, requests, out, cache, _) = try await Self.journaled("journal-own")
        /// The generation the journal carries, and the table's now.
        func generations() throws -> (journal: Int64, table: Int64) {
            let opened = try ThumbnailCache(directory: cache)
            defer { opened.close() }
            let journal = try #require(WarmJournal(cache: opened, outputDirectory: out))
            let bytes = try #require(WarmJournal.read(journal.path))
            let index = try #require(JournalIndex(bytes: bytes))
            return (index.folders.filesGeneration, try #require(opened.files.generation()))
        }

        // A new source, hashed and written by the run that saves the journal.
        let other = try folder.write(try RawImage.quadrants(width: 40, height: 30).encoded(as: .png), to: "b.png")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 978_307_200)],
                                              ofItemAtPath: other.path)
        var more = requests
        more.append(ThumbnailRequest(row: 5, id: "5", sourceText: "b.png", source: .file(other.path),
                                     outTemplate: "{name}-{w}x{h}.png", spec: ThumbnailSpec()))
        let before = try generations()
        let grown = try Self.run(more, out: out, cache: cache)
        #expect(grown.counts?.kept == 3)
        let after = try generations()
        #expect(after.table > before.table)
        #expect(after.journal == after.table, "\(after)")

        // Another process writes while a run goes on: the run's journal keeps the generation it saw.
        let database = IndexDatabase(path: cache.path + "/index.db", readOnly: false) { _ in }
        let third = try folder.write(try RawImage.quadrants(width: 20, height: 10).encoded(as: .png), to: "c.png")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 978_307_200)],
                                              ofItemAtPath: third.path)
        more.append(ThumbnailRequest(row: 6, id: "6", sourceText: "c.png", source: .file(third.path),
                                     outTemplate: "{name}-{w}x{h}.png", spec: ThumbnailSpec()))
        var configuration = PipelineConfiguration(outputDirectory: out)
        configuration.cache = try ThumbnailCache(directory: cache)
        let pipeline = try Pipeline(configuration: configuration, onResult: { _ in })
        let seen = try #require(configuration.cache?.files.generationSinceTracked())
        #expect(database.execute("UPDATE generations SET value = value + 1 WHERE name = 'files'"))
        database.close()
        more.forEach(pipeline.submit)
        pipeline.waitUntilFinished()
        #expect(configuration.cache?.files.generationSinceTracked() == nil)
        let raced = try generations()
        #expect(raced.journal == seen, "\(raced) \(seen)")
    }

    @Test("A journal read back whole is the journal written; one cut anywhere is refused")
    func roundTrip() throws {
        let stamp = FileStamp(device: 1, inode: 2, size: 3, modified: 4, changed: 5)
        let source = JournalSource(path: "/src/a.png", stamp: stamp, digest: [UInt8](repeating: 7, count: 32),
                                   written: 41)
        let key = [UInt8](repeating: 0xab, count: 32)
        let record = OutputRecord(sha256: String(repeating: "c", count: 64), width: 30, height: 20, format: .png, bytes: 99)
        let entry = JournalEntry(
            hash: JournalFormat.entryHash(sourcePath: source.path, key: key, template: "{row}.png", row: 7),
            source: 0, template: "{row}.png", path: "7.png", row: 7, key: key, record: record,
            recordStamp: stamp, outStamp: stamp)
        var notes = JournalNotes()
        notes.add(entry, source: source)
        let identity = JournalIdentity(outPath: "/out", outDevice: 1, outInode: 2, cacheRoot: "/cache",
                                       cacheDevice: 3, cacheInode: 4)
        let folders = CacheFolderStamps(stamps: [FileStamp?](repeating: stamp, count: CacheFolderStamps.count),
                                        filesGeneration: 42)
        var written: [UInt8] = []
        #expect(notes.write(identity: identity, folders: folders, previous: nil) { written += $0; return true })
        let index = try #require(JournalIndex(bytes: written))
        #expect(index.identity == identity && index.folders == folders && index.entryCount == 1)
        let found = index.bytes.withUnsafeBytes { raw in
            index.probeEntries(hash: entry.hash) { offset in JournalEntry.record(JournalReader(bytes: raw), at: offset) }
        }
        #expect(found == record)
        let readSource = index.bytes.withUnsafeBytes { raw in
            JournalSource.decode(JournalReader(bytes: raw), at: index.sourceOffsets[0], end: raw.count)?.0
        }
        #expect(readSource == source)
        for cut in [0, 1, 72, written.count / 2, written.count - 33, written.count - 1] {
            #expect(JournalIndex(bytes: Array(written.prefix(cut))) == nil, "cut at \(cut)")
        }
    }
}
