// sources: Caching/JournalFormat.swift Caching/JournalIndex.swift Caching/JournalNotes.swift Caching/CacheFolderStamps.swift Support/FileStamp.swift Caching/OutputIndex.swift Caching/CacheRecord.swift Caching/FileIndex.swift Caching/CacheLayout.swift Support/ContentDigest.swift Support/Cancellation.swift Model/OutputFormat.swift Model/PathText.swift Support/DescriptorIO.swift Support/LockedFile.swift Support/TemporaryFile.swift Support/TemporaryFiles.swift Support/TemporaryName.swift Support/TemporarySweeper.swift Caching/Store/IndexDatabase.swift Caching/Store/IndexDatabase+Opening.swift Caching/Store/IndexSchema.swift Caching/Store/UseLog.swift Caching/Store/StoreHealth.swift
// swiftpm: Crypto CSQLite
import Foundation

// The journal's reader is what is fuzzed (`JournalIndex` and the `JournalSource` and
// `JournalEntry` decoders); the writer (`JournalNotes`) makes well-formed journals to damage.
// The other sources are there because those files also hold what a run opens the journal with
// (`CacheFolderStamps(of:files:)`, `FileIndex`, the database): none of it runs here.

/// The warm journal's reader over any bytes, as a cache folder that another process, another
/// machine or a bad disk wrote may hold them.
///
/// Every mutation breaks the journal's SHA-256, and few make its header; so each input is also
/// read resealed (its last 32 bytes made the checksum of the rest), and it is also turned into
/// a well-formed journal (its bytes giving the paths, keys, templates, rows and numbers), which
/// must read back, then damaged by its own bytes, resealed, and read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWarmJournal(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    readEverything(bytes)
    readEverything(resealed(bytes))
    let written = journal(from: bytes)
    precondition(JournalIndex(bytes: written) != nil, "a journal written does not read back")
    readEverything(written)
    var damaged = written
    var pairs = bytes.makeIterator()
    while let at = pairs.next(), let value = pairs.next() {
        let position = (Int(at) * 7919 + Int(value)) % damaged.count
        damaged[position] ^= value | 1
    }
    readEverything(resealed(damaged))
    return 0
}

/// Reads `bytes` as a run reads a journal: the index, every source and entry, every lookup.
func readEverything(_ bytes: [UInt8]) {
    guard let index = JournalIndex(bytes: bytes) else { return }
    index.forEachRecord { _, _ in }
    index.bytes.withUnsafeBytes { raw in
        let reader = JournalReader(bytes: raw)
        for offset in index.sourceOffsets {
            let decoded = JournalSource.decode(reader, at: offset, end: raw.count - JournalFormat.checkSize)
            if let source = decoded?.0 {
                var hash = JournalFormat.Hash()
                hash.add(source.path.utf8)
                _ = index.probeSources(hash: hash.value) { ordinal -> Int? in
                    precondition(index.sourceOffsets.indices.contains(ordinal), "a source slot out of range")
                    return nil
                }
            }
        }
        for template in index.templates {
            precondition(template.offset + template.length <= raw.count, "a template past the end")
        }
        for probe in 0..<UInt64(min(index.entryCount, 64)) {
            _ = index.probeEntries(hash: probe &* 0x9e37_79b9_7f4a_7c15) { found -> Int? in
                _ = JournalEntry.record(reader, at: found)
                _ = JournalEntry.path(reader, at: found)
                _ = JournalEntry.row(reader, at: found)
                precondition(index.templates.indices.contains(JournalEntry.template(reader, at: found)),
                             "an entry's template out of range")
                return nil
            }
        }
    }
}

/// A well-formed journal made of `bytes`: up to four sources and eight entries.
func journal(from bytes: [UInt8]) -> [UInt8] {
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
        notes.add(entry, source: source)
    }
    let identity = JournalIdentity(outPath: "/out/" + text(Int(next() % 8)), outDevice: 1, outInode: 2,
                                   cacheRoot: "/cache", cacheDevice: 3, cacheInode: 4)
    let folders = CacheFolderStamps(stamps: (0..<CacheFolderStamps.count).map { _ in next() & 3 == 0 ? nil : stamp() },
                                    filesGeneration: Int64(next()))
    var written: [UInt8] = []
    _ = notes.write(identity: identity, folders: folders, previous: nil) { chunk in
        written += chunk
        return true
    }
    return written
}

/// `bytes` with its last 32 bytes replaced by the SHA-256 of the rest (made 32 bytes longer
/// first when shorter).
func resealed(_ bytes: [UInt8]) -> [UInt8] {
    let body = bytes.count >= JournalFormat.checkSize ? Array(bytes.dropLast(JournalFormat.checkSize)) : bytes
    return body + body.withUnsafeBytes { JournalFormat.check($0) }
}
