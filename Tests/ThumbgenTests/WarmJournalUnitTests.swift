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

        // A journal whose entries were damaged is not read: the slow path proves the rows again.
        try CacheFiles(root: cache).execute("UPDATE journal_entries SET proof = substr(proof, 1, 100)")
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
            let index = try #require(JournalIndex.load(outPath: journal.outPath, from: opened.index))
            return (index.generations.files, try #require(opened.files.generation.current()))
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
        let seen = try #require(configuration.cache?.files.generation.sinceTracked())
        #expect(database.execute("UPDATE generations SET value = value + 1 WHERE name = 'files'"))
        database.close()
        more.forEach(pipeline.submit)
        pipeline.waitUntilFinished()
        #expect(configuration.cache?.files.generation.sinceTracked() == nil)
        let raced = try generations()
        #expect(raced.journal == seen, "\(raced) \(seen)")
    }

    @Test("Another process's change of an output record makes the journal check each record's stamp: one replaced is proved again, the others still served")
    func recordsGeneration() async throws {
        let (folder, requests, out, cache, proved) = try await Self.journaled("journal-records")
        defer { withExtendedLifetime(folder) {} }
        #expect(try Self.run(requests, out: out, cache: cache).counts?.kept == 3)

        // Another process raises the generation (as it would before writing a record of its own).
        try CacheFiles(root: cache).execute("UPDATE generations SET value = value + 1 WHERE name = 'outputs'")
        var checked = try Self.run(requests, out: out, cache: cache)
        #expect(checked.counts?.kept == 3 && checked.counts?.fresh == 0)
        #expect(checked.results.map(\.jsonRecord) == proved.map(\.jsonRecord))

        // One record replaced by another file with the same bytes (a render of its own).
        let record = try #require(CacheFiles(root: cache).entries("outputs").first)
        let bytes = try Data(contentsOf: record)
        try FileManager.default.removeItem(at: record)
        try bytes.write(to: record)
        try CacheFiles(root: cache).execute("UPDATE generations SET value = value + 1 WHERE name = 'outputs'")
        checked = try Self.run(requests, out: out, cache: cache)
        #expect(checked.counts?.kept == 2 && checked.counts?.fresh == 1)
        #expect(checked.results.map(\.jsonRecord) == proved.map(\.jsonRecord))
        // That run saved the generation it saw: the next is served whole again.
        #expect(try Self.run(requests, out: out, cache: cache).counts?.kept == 3)
    }

    @Test("A run that writes output records raises the outputs generation before and after, and its own journal keeps its trust")
    func ownRecordChanges() async throws {
        let (folder, requests, out, cache, _) = try await Self.journaled("journal-own-records")
        defer { withExtendedLifetime(folder) {} }
        func generation() throws -> Int64 {
            let opened = try #require(ThumbnailCache(lookingAt: cache))
            return try #require(opened.outputs.changes.generation.current())
        }
        let before = try generation()
        // A fourth row: a new output, rendered and recorded by this run.
        var more = requests
        var spec = ThumbnailSpec()
        spec.box = TargetBox(width: 15, height: nil)
        more.append(ThumbnailRequest(row: 5, id: "5", sourceText: "a.png", source: requests[0].source,
                                     outTemplate: "{name}-{w}x{h}.png", spec: spec))
        let grown = try Self.run(more, out: out, cache: cache)
        #expect(grown.results.last?.status == .written)
        #expect(try generation() == before + 2)
        let opened = try ThumbnailCache(directory: cache)
        let journal = try #require(WarmJournal(cache: opened, outputDirectory: out))
        let saved = try #require(JournalIndex.load(outPath: journal.outPath, from: opened.index))
        opened.close()
        #expect(saved.generations.outputs == before + 2)
        #expect(try Self.run(more, out: out, cache: cache).counts?.kept == 3)
    }

    @Test("A source both kept from the last journal and proved again the slow way is saved once, whichever came first")
    func sourceNotedOnce() throws {
        let stamp = FileStamp(device: 1, inode: 2, size: 3, modified: 4, changed: 5)
        let source = JournalSource(path: "/src/a.png", stamp: stamp, digest: [UInt8](repeating: 7, count: 32), written: 41)
        let record = OutputRecord(sha256: String(repeating: "c", count: 64), width: 30, height: 20, format: .png, bytes: 99)
        func entry(_ fill: UInt8) -> JournalEntry {
            let key = [UInt8](repeating: fill, count: 32)
            return JournalEntry(hash: JournalFormat.entryHash(sourcePath: source.path, key: key, template: "x.png", row: nil),
                                source: 0, template: "x.png", path: "x-\(fill).png", row: nil, key: key, record: record,
                                recordStamp: stamp, outStamp: stamp)
        }
        // The last journal: the source and one entry over it.
        var writer = JournalWriter()
        entry(1).encode(into: &writer)
        var sources = JournalSources()
        #expect(source.digest.withUnsafeBytes { sources.append(path: source.path, stamp: stamp, digest: $0, written: 41) })
        let previous = JournalIndex(id: 1, identity: JournalIdentity(outPath: "/out", outDevice: 1, outInode: 2),
                                    generations: JournalGenerations(files: 1, outputs: 1), lastUsed: 0,
                                    sources: sources, bytes: writer.bytes, offsets: [0])
        for keepFirst in [true, false] {
            var notes = JournalNotes()
            if keepFirst { notes.keep(entry: 0, source: 0, from: previous) }
            notes.add(entry(2), source: source, previous: previous)
            if !keepFirst { notes.keep(entry: 0, source: 0, from: previous) }
            var saved: [JournalSource] = []
            var tokens: [UInt32] = []
            notes.rows(previous: previous, source: { saved.append($1) },
                       entry: { tokens.append(JournalReader(bytes: $0).u32(JournalEntry.sourceAt)) })
            #expect(saved == [source], "keep first: \(keepFirst)")
            #expect(tokens == [0, 0], "keep first: \(keepFirst)")
        }
    }

    @Test("A journal's rows read back are what was noted, crop box and placeholder included; a proof cut anywhere is not whole",
          arguments: [false, true])
    func roundTrip(withExtras: Bool) throws {
        let stamp = FileStamp(device: 1, inode: 2, size: 3, modified: 4, changed: 5)
        let source = JournalSource(path: "/src/a.png", stamp: stamp, digest: [UInt8](repeating: 7, count: 32),
                                   written: 41)
        let key = [UInt8](repeating: 0xab, count: 32)
        var record = OutputRecord(sha256: String(repeating: "c", count: 64), width: 30, height: 20, format: .png, bytes: 99)
        let placeholder = Placeholder(dominant: "#0a0bfc", thumbHash: [1, 2, 3, 4, 5], lqip: Array(0..<200))
        if withExtras {
            record.cropBox = CropBox(x: 5, y: 6, width: 7, height: 8)
            record.placeholder = placeholder
        }
        let entry = JournalEntry(
            hash: JournalFormat.entryHash(sourcePath: source.path, key: key, template: "{row}.png", row: 7),
            source: 0, template: "{row}.png", path: "7.png", row: 7, key: key, record: record,
            recordStamp: stamp, outStamp: stamp)
        var notes = JournalNotes()
        notes.add(entry, source: source, previous: nil)
        var sources: [JournalSource] = []
        var entries: [[UInt8]] = []
        notes.rows(previous: nil, source: { sources.append($1) }, entry: { entries.append(Array($0)) })
        #expect(sources == [source] && entries.count == 1)
        let written = try #require(entries.first)
        let identity = JournalIdentity(outPath: "/out", outDevice: 1, outInode: 2)
        var flat = JournalSources()
        for source in sources {
            #expect(source.digest.withUnsafeBytes { flat.append(path: source.path, stamp: source.stamp, digest: $0, written: source.written) })
        }
        let index = JournalIndex(id: 1, identity: identity, generations: JournalGenerations(files: 42, outputs: 43),
                                 lastUsed: 0, sources: flat, bytes: written, offsets: [0])
        let found = index.bytes.withUnsafeBytes { raw -> (OutputRecord?, String, Int64?, Bool, Placeholder?, Int)? in
            index.probeEntries(hash: entry.hash) { offset in
                let reader = JournalReader(bytes: raw)
                return (JournalEntry.record(reader, at: offset), JournalEntry.path(reader, at: offset),
                        JournalEntry.row(reader, at: offset),
                        JournalEntry.isFor(templateCheck: JournalFormat.templateCheck("{row}.png"), reader, at: offset),
                        JournalEntry.placeholder(reader, at: offset), JournalEntry.size(reader, at: offset))
            }
        }
        // The record comes back without its placeholder, which only a run that reports one reads.
        var withoutPlaceholder = record
        withoutPlaceholder.placeholder = nil
        #expect(found?.0 == withoutPlaceholder && found?.1 == "7.png" && found?.2 == 7 && found?.3 == true)
        #expect(found?.4 == record.placeholder && found?.5 == written.count)
        #expect(index.sources.ordinal(of: "/src/a.png") == 0 && index.sources.ordinal(of: "/src/b.png") == nil)
        #expect(index.sources[0] == source)
        let proof = Array(written[JournalEntry.proofAt...])
        #expect(proof.withUnsafeBytes(JournalEntry.isWhole))
        for cut in [0, 1, 40, proof.count / 2, proof.count - 3, proof.count - 1] {
            #expect(!Array(proof.prefix(cut)).withUnsafeBytes(JournalEntry.isWhole), "cut at \(cut)")
        }
        #expect(!(proof + [0]).withUnsafeBytes(JournalEntry.isWhole))
    }
}
