// sources: Caching/JournalFormat.swift Caching/JournalIndex.swift Caching/JournalNotes.swift Support/FileStamp.swift Caching/OutputIndex.swift Caching/CacheRecord.swift Caching/FileIndex.swift Caching/CacheLayout.swift Support/ContentDigest.swift Support/Cancellation.swift Model/OutputFormat.swift Model/PathText.swift Support/DescriptorIO.swift Support/LockedFile.swift Support/TemporaryFile.swift Support/TemporaryFiles.swift Support/TemporaryName.swift Support/TemporarySweeper.swift Caching/Store/IndexDatabase.swift Caching/Store/IndexDatabase+Opening.swift Caching/Store/IndexSchema.swift Caching/Store/UseLog.swift Caching/Store/StoreHealth.swift Caching/Store/Generation.swift Model/Placeholder.swift Model/CropBox.swift
// swiftpm: Crypto CSQLite
import Foundation

// The journal's reader is what is fuzzed: `JournalIndex.Entries`, which takes or leaves out
// each row of `journal_entries` as read, and the `JournalEntry` readers over what it took. The
// writer (`JournalNotes`) makes well-formed rows to damage. The other sources are there because
// those files also hold what a run loads the journal with (`JournalIndex.load`, `FileIndex`,
// the database): none of it runs here.

/// The warm journal's reader over any rows, as a database that another process, another
/// machine or a bad disk wrote may hold them.
///
/// Each input is read as rows of its own (a length byte, then the proof; keys and hashes from
/// the bytes after), and is also turned into well-formed rows (its bytes giving the paths,
/// keys, templates, rows and numbers), which must all be taken, then damaged by its own bytes
/// and read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWarmJournal(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    readEverything(rows(cutting: bytes), sources: 1 + Int(bytes.first ?? 0) % 4)
    let (written, sources) = journal(from: bytes)
    var entries = JournalIndex.Entries(sourceCount: sources)
    for row in written {
        let taken = row.key.withUnsafeBytes { key in row.proof.withUnsafeBytes { entries.add(hash: row.hash, key: key, proof: $0) } }
        precondition(taken, "a row written is not taken")
    }
    readEverything(written, sources: sources)
    var damaged = written
    var pairs = bytes.makeIterator()
    while !damaged.isEmpty, let at = pairs.next(), let value = pairs.next() {
        let index = Int(at) % damaged.count
        var proof = damaged[index].proof
        if value & 1 == 1, !proof.isEmpty {
            proof[(Int(at) * 7919 + Int(value)) % proof.count] ^= value
        } else {
            proof = Array(proof.prefix(Int(value) % (proof.count + 1)))
        }
        damaged[index].proof = proof
    }
    readEverything(damaged, sources: sources)
    return 0
}

/// A row of `journal_entries`, its journal aside.
struct Row {
    var hash: Int64
    var key: [UInt8]
    var proof: [UInt8]
}

/// Rows cut from `bytes`: a length byte and that many bytes of proof, then a key of 32.
func rows(cutting bytes: [UInt8]) -> [Row] {
    var rows: [Row] = []
    var at = 0
    while at < bytes.count {
        let length = Int(bytes[at]) * 2
        let proof = Array(bytes[min(at + 1, bytes.count)..<min(at + 1 + length, bytes.count)])
        at += 1 + length
        let key = Array(bytes[min(at, bytes.count)..<min(at + 32, bytes.count)])
        at += 32
        rows.append(Row(hash: Int64(rows.count) &* 0x9e37_79b9, key: key, proof: proof))
    }
    return rows
}

/// Reads `rows` as a run reads a journal of `sources` sources: every row offered, every
/// entry taken read whole, every lookup made.
func readEverything(_ rows: [Row], sources: Int) {
    var entries = JournalIndex.Entries(sourceCount: sources)
    for row in rows {
        _ = row.key.withUnsafeBytes { key in row.proof.withUnsafeBytes { entries.add(hash: row.hash, key: key, proof: $0) } }
    }
    let stamp = FileStamp(device: 0, inode: 0, size: 0, modified: 0, changed: 0)
    var known = JournalSources()
    let digest = [UInt8](repeating: 0, count: 32)
    for ordinal in 0..<sources {
        _ = digest.withUnsafeBytes { known.append(path: "/src/\(ordinal)", stamp: stamp, digest: $0, written: 0) }
    }
    let index = JournalIndex(
        id: 1, identity: JournalIdentity(outPath: "/out", outDevice: 0, outInode: 0),
        generations: JournalGenerations(files: 0, outputs: 0), lastUsed: 0,
        sources: known, bytes: entries.bytes, offsets: entries.offsets)
    index.bytes.withUnsafeBytes { raw in
        let reader = JournalReader(bytes: raw)
        for offset in entries.offsets.map(Int.init) {
            precondition(offset + JournalEntry.size(reader, at: offset) <= raw.count, "an entry past the end")
            precondition(Int(reader.u32(offset + JournalEntry.sourceAt)) < sources, "a source out of range")
            _ = JournalEntry.record(reader, at: offset)
            _ = JournalEntry.path(reader, at: offset)
            _ = JournalEntry.row(reader, at: offset)
            _ = JournalEntry.isFor(templateCheck: JournalFormat.templateCheck("{row}.png"), reader, at: offset)
            let hash = reader.u64(offset)
            precondition(index.probeEntries(hash: hash) { $0 == offset ? true : nil } == true, "an entry not found by its hash")
        }
    }
}

/// Well-formed rows made of `bytes`: up to four sources and eight entries; and how many sources.
func journal(from bytes: [UInt8]) -> (rows: [Row], sources: Int) {
    var input = bytes.makeIterator()
    func next() -> UInt8 { input.next() ?? 0 }
    func text(_ length: Int) -> String {
        String(decoding: (0..<length).map { _ in next() }, as: UTF8.self)
    }
    func stamp() -> FileStamp {
        FileStamp(device: UInt64(next()), inode: UInt64(next()), size: Int64(next()),
                  modified: Int64(next()) << 20, changed: Int64(next()) << 20)
    }
    var notes = JournalNotes()
    let sources = (0..<(1 + Int(next() % 4))).map { index in
        JournalSource(path: "/src/\(index)/" + text(Int(next() % 16)), stamp: stamp(),
                      digest: (0..<32).map { _ in next() }, written: Int64(next()) + 1)
    }
    for index in 0..<(1 + Int(next() % 8)) {
        let source = sources[index % sources.count]
        let key = (0..<32).map { _ in next() }
        let template = next() & 1 == 0 ? "{row}-" + text(Int(next() % 8)) : text(Int(next() % 8)) + ".png"
        let row = JournalFormat.keyedRow(template: template, row: Int(next()))
        let record = OutputRecord(sha256: ContentDigest.hex((0..<32).map { _ in next() }), width: Int(next()),
                                  height: Int(next()), format: OutputFormat(storedCode: next() % 8) ?? .png,
                                  bytes: Int(next()) << 8)
        let entry = JournalEntry(
            hash: JournalFormat.entryHash(sourcePath: source.path, key: key, template: template, row: row),
            source: 0, template: template, path: text(Int(next() % 24)), row: row, key: key, record: record,
            recordStamp: stamp(), outStamp: stamp())
        notes.add(entry, source: source, previous: nil)
    }
    var rows: [Row] = []
    var count = 0
    notes.rows(previous: nil, source: { _, _ in count += 1 }, entry: { entry in
        let reader = JournalReader(bytes: entry)
        rows.append(Row(hash: reader.i64(0), key: Array(entry[JournalEntry.keyAt..<JournalEntry.proofAt]),
                        proof: Array(entry[JournalEntry.proofAt...])))
    })
    return (rows, count)
}
