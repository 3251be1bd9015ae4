import Crypto
import Foundation

/// The warm journal's file, version 2: little-endian binary, fixed-size fields so that a
/// lookup reads them in place, and a SHA-256 of everything before it at the end, so that a
/// torn, truncated or damaged file is never read as valid.
///
///     header    magic "thumbgen-journal" (16), version u32, sources u32, entries u32,
///               out path length u32, cache root length u32, templates u32,
///               --out folder device u64 and inode u64, cache `v1` device u64 and inode u64,
///               the --out real path and the cache root, padded to 8
///     records   `CacheFolderStamps`: the `files` generation i64, then 256 stamps of 40 bytes
///               (all zero: none)
///     sources   one `JournalSource` each: fixed part (88 bytes) + path, padded to 8
///     templates the `out` templates entries name: length u32 + text, padded to 8
///     entries   one `JournalEntry` each: fixed part (160 bytes) + [row] + out path, padded
///     check     SHA-256 of all the bytes before it (32)
///
/// An entry is about 180 bytes: the whole journal of a 100,000-row run is held in memory.
enum JournalFormat {
    static let magic = Array("thumbgen-journal".utf8)
    static let version: UInt32 = 2
    static let headerSize = 72
    static let sourceSize = 88
    static let entrySize = 160
    static let checkSize = 32
    /// A journal over this size is not written (nor read): the slow path is always right.
    static let maxBytes = 1 << 30

    /// 64-bit FNV-1a, stable from process to process (Swift's `Hasher` is seeded per
    /// process): what the file's lookups are keyed by.
    struct Hash {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }

        mutating func add(_ number: UInt64) {
            withUnsafeBytes(of: number.littleEndian) { add($0) }
        }
    }

    /// The key an entry is found by: the row's source path, its output key, its `out`
    /// template, and its row number when the template names `{row}` (else the path does not
    /// depend on it, and rows may move in the manifest).
    static func entryHash(sourcePath: String, key: [UInt8], template: String, row: Int64?) -> UInt64 {
        var hash = Hash()
        hash.add(sourcePath.utf8)
        hash.add(0xff)
        hash.add(key)
        hash.add(template.utf8)
        hash.add(0xff)
        if let row { hash.add(UInt64(bitPattern: row)) }
        return hash.value
    }

    /// The row number an entry is keyed by: nil unless the template names `{row}`.
    static func keyedRow(template: String, row: Int) -> Int64? {
        template.containsBytes("{row}") ? Int64(row) : nil
    }

    /// The bytes of a 64-digit lowercase hex digest; nil for anything else.
    static func raw(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 {
            guard let high = nibble(digits[2 * i]), let low = nibble(digits[2 * i + 1]) else { return nil }
            out[i] = high << 4 | low
        }
        return out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 97...102: digit - 87
        default: nil
        }
    }

    /// The SHA-256 the file ends with, over `bytes`.
    static func check(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}

/// Appends a journal's fields.
struct JournalWriter {
    var bytes: [UInt8] = []

    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
    mutating func raw<Bytes: Sequence>(_ value: Bytes) where Bytes.Element == UInt8 { bytes += value }

    mutating func stamp(_ stamp: FileStamp) {
        u64(stamp.device); u64(stamp.inode); i64(stamp.size); i64(stamp.modified); i64(stamp.changed)
    }

    /// A cache record's stamp: its inode and times (its device is the cache's, its size
    /// changes only with its inode).
    mutating func recordStamp(_ stamp: FileStamp) {
        u64(stamp.inode); i64(stamp.modified); i64(stamp.changed)
    }

    /// Zeros up to the next multiple of 8.
    mutating func pad() {
        while bytes.count % 8 != 0 { bytes.append(0) }
    }
}

/// Reads a journal's fields in place.
struct JournalReader {
    let bytes: UnsafeRawBufferPointer

    func u16(_ offset: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    func i64(_ offset: Int) -> Int64 { Int64(bitPattern: u64(offset)) }

    func stamp(_ offset: Int) -> FileStamp {
        FileStamp(device: u64(offset), inode: u64(offset + 8), size: i64(offset + 16),
                  modified: i64(offset + 24), changed: i64(offset + 32))
    }

    /// A cache record's stamp (`JournalWriter.recordStamp`): device and size unknown (0).
    func recordStamp(_ offset: Int) -> FileStamp {
        FileStamp(device: 0, inode: u64(offset), size: 0, modified: i64(offset + 8), changed: i64(offset + 16))
    }

    /// Whether the `count` bytes at `offset` are `other`.
    func equals<Bytes: Collection>(_ offset: Int, _ count: Int, _ other: Bytes) -> Bool where Bytes.Element == UInt8 {
        other.count == count && bytes[offset..<(offset + count)].elementsEqual(other)
    }

    func string(_ offset: Int, _ count: Int) -> String {
        String(decoding: bytes[offset..<(offset + count)], as: UTF8.self)
    }

    func hex(_ offset: Int) -> String {
        ContentDigest.hex(bytes[offset..<(offset + 32)])
    }
}

/// What the journal knows of one local source: its stamp, its digest, and the generation that
/// wrote the `files` row that gave the digest (`FileIndex.Known.written`).
struct JournalSource: Equatable {
    var path: String
    var stamp: FileStamp
    var digest: [UInt8]
    var written: Int64

    func encode(into writer: inout JournalWriter) {
        let path = Array(path.utf8)
        writer.u32(UInt32(path.count)); writer.u32(0)
        writer.stamp(stamp)
        writer.raw(digest)
        writer.i64(written)
        writer.raw(path)
        writer.pad()
    }

    /// Field offsets within the fixed part.
    static let stampAt = 8, digestAt = 48, writtenAt = 80

    /// The source at `offset`, and where the next one starts; nil when it runs past `end`.
    static func decode(_ reader: JournalReader, at offset: Int, end: Int) -> (JournalSource, next: Int)? {
        guard offset + JournalFormat.sourceSize <= end else { return nil }
        let length = Int(reader.u32(offset))
        let next = (offset + JournalFormat.sourceSize + length + 7) & ~7
        guard next <= end else { return nil }
        let source = JournalSource(
            path: reader.string(offset + JournalFormat.sourceSize, length), stamp: reader.stamp(offset + stampAt),
            digest: Array(reader.bytes[(offset + digestAt)..<(offset + digestAt + 32)]),
            written: reader.i64(offset + writtenAt))
        return (source, next)
    }
}

/// What the journal knows of one output: the row it is for (source, output key, `out`
/// template, and row number if the template names it), the output record it was served by,
/// the stamp of that record's file (`v1/outputs/…`), and its file under `--out`, with its stamp.
struct JournalEntry: Equatable {
    var hash: UInt64
    var source: UInt32
    var template: String
    var path: String
    var row: Int64?
    var key: [UInt8]
    var record: OutputRecord
    var recordStamp: FileStamp
    var outStamp: FileStamp

    /// Field offsets within the fixed part.
    static let sourceAt = 8, bytesAt = 12, widthAt = 16, heightAt = 20, templateAt = 24, pathLengthAt = 26,
               formatAt = 28, flagsAt = 29, keyAt = 32, shaAt = 64, recordStampAt = 96, outStampAt = 120

    /// Whether the entry fits the fixed fields (a huge output is simply not journaled).
    var fits: Bool {
        record.width <= Int(UInt32.max) && record.height <= Int(UInt32.max) && record.bytes <= Int(UInt32.max)
            && path.utf8.count <= Int(UInt16.max) && key.count == 32
    }

    /// Encodes the entry, naming its template by `templateIndex`.
    func encode(into writer: inout JournalWriter, templateIndex: Int) {
        let path = Array(path.utf8)
        writer.u64(hash)
        writer.u32(source); writer.u32(UInt32(record.bytes))
        writer.u32(UInt32(record.width)); writer.u32(UInt32(record.height))
        writer.raw([UInt8(templateIndex & 0xff), UInt8(templateIndex >> 8),
                    UInt8(path.count & 0xff), UInt8(path.count >> 8),
                    record.format.storedCode, row == nil ? 0 : 1, 0, 0])
        writer.raw(key)
        writer.raw(JournalFormat.raw(hex: record.sha256) ?? [UInt8](repeating: 0, count: 32))
        writer.recordStamp(recordStamp)
        writer.stamp(outStamp)
        if let row { writer.i64(row) }
        writer.raw(path)
        writer.pad()
    }

    /// Where the entry at `offset` ends (padded); nil when it runs past `end`.
    static func end(_ reader: JournalReader, at offset: Int, end: Int) -> Int? {
        guard offset + JournalFormat.entrySize <= end else { return nil }
        let next = (offset + JournalFormat.entrySize + variableLength(reader, at: offset) + 7) & ~7
        return next <= end ? next : nil
    }

    private static func variableLength(_ reader: JournalReader, at offset: Int) -> Int {
        (reader.bytes[offset + flagsAt] & 1 == 1 ? 8 : 0) + Int(reader.u16(offset + pathLengthAt))
    }

    /// The template index of the entry at `offset`.
    static func template(_ reader: JournalReader, at offset: Int) -> Int { Int(reader.u16(offset + templateAt)) }

    /// The row the entry at `offset` is keyed by, if its template names `{row}`.
    static func row(_ reader: JournalReader, at offset: Int) -> Int64? {
        reader.bytes[offset + flagsAt] & 1 == 1 ? reader.i64(offset + JournalFormat.entrySize) : nil
    }

    /// The output record the entry at `offset` holds; nil for a format this version lacks.
    static func record(_ reader: JournalReader, at offset: Int) -> OutputRecord? {
        guard let format = OutputFormat(storedCode: reader.bytes[offset + formatAt]) else { return nil }
        return OutputRecord(sha256: reader.hex(offset + shaAt), width: Int(reader.u32(offset + widthAt)),
                            height: Int(reader.u32(offset + heightAt)), format: format,
                            bytes: Int(reader.u32(offset + bytesAt)))
    }

    /// The out path of the entry at `offset`.
    static func path(_ reader: JournalReader, at offset: Int) -> String {
        let start = offset + JournalFormat.entrySize + (reader.bytes[offset + flagsAt] & 1 == 1 ? 8 : 0)
        return reader.string(start, Int(reader.u16(offset + pathLengthAt)))
    }
}
