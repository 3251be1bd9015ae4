import Foundation

/// What the warm journal's rows hold beyond plain columns: the 64-bit hash an entry is found
/// by, and an entry's proof, packed (`journal_entries.proof`). Packed because a warm run reads
/// every entry of its journal before its first row: as one blob each, 100,000 entries scan in
/// about 20 ms; as a column per field, in about 60 ms (docs/performance.md).
enum JournalFormat {
    /// 64-bit FNV-1a, stable from process to process (Swift's `Hasher` is seeded per
    /// process): what entries are found by.
    struct Hash {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            // Over the bytes in place where they are contiguous (a native string's): a warm
            // run hashes every row's source path and template, and the sequence's iterator
            // cost four times the arithmetic.
            var hash = value
            let hashed: Void? = bytes.withContiguousStorageIfAvailable { (buffer: UnsafeBufferPointer<UInt8>) -> Void in
                for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            if hashed == nil {
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            value = hash
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

    /// A second, independent hash of an `out` template (32-bit FNV-1a), which an entry keeps in
    /// place of the template's text: a row is served only when both hashes agree.
    static func templateCheck(_ template: String) -> UInt32 {
        var value: UInt32 = 0x811c_9dc5
        for byte in template.utf8 { value = (value ^ UInt32(byte)) &* 0x0100_0193 }
        return value
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

/// What the journal knows of one local source (a row of `journal_sources`): its stamp, its
/// digest, and the generation that wrote the `files` row that gave the digest
/// (`FileIndex.Known.written`).
struct JournalSource: Equatable, Sendable {
    var path: String
    var stamp: FileStamp
    var digest: [UInt8]
    var written: Int64
}

/// What the journal knows of one output (a row of `journal_entries`): the row it is for
/// (source, output key, `out` template, and row number if the template names it), the output
/// record it was served by, the stamp of that record's file (`v1/outputs/…`), and its file
/// under `--out`, with its stamp.
///
/// In memory an entry is its hash, its key and its proof, one after the other: the proof's
/// fields are read in place (`JournalReader`) at these offsets, all little-endian.
///
///     0 hash u64 · 8 key (32) · 40 source ordinal u32 · 44 bytes u32 · 48 width u32 ·
///     52 height u32 · 56 template check u32 (`JournalFormat.templateCheck`) · 60 path length u16 ·
///     62 format code u8 · 63 flags u8 (1: a row number follows; 2: a placeholder ends the entry;
///     4: a crop box follows; 8: the record owes its source's placeholder) · 64 record SHA-256 (32) ·
///     96 record stamp (24) · 120 --out file stamp (40) · 160 [row i64] ·
///     [crop box: x, y, width, height u32] · path ·
///     [placeholder: dominant RGB (3) · ThumbHash length u8 · ThumbHash · LQIP length u16 · LQIP]
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

    /// Field offsets.
    static let keyAt = 8, proofAt = 40, sourceAt = 40, bytesAt = 44, widthAt = 48, heightAt = 52,
               templateCheckAt = 56, pathLengthAt = 60, formatAt = 62, flagsAt = 63, shaAt = 64,
               recordStampAt = 96, outStampAt = 120, fixedSize = 160

    /// Whether the entry fits the fixed fields (a huge output is simply not journaled).
    var fits: Bool {
        let box = record.cropBox.map { [$0.x, $0.y, $0.width, $0.height] } ?? []
        return record.width <= Int(UInt32.max) && record.height <= Int(UInt32.max) && record.bytes <= Int(UInt32.max)
            && path.utf8.count <= Int(UInt16.max) && key.count == 32 && box.allSatisfy { $0 <= Int(UInt32.max) }
            && (record.placeholder.map { $0.thumbHash.count <= 255 && $0.lqip.count <= Int(UInt16.max) } ?? true)
    }

    /// Appends the entry, in its in-memory form.
    func encode(into writer: inout JournalWriter) {
        let path = Array(path.utf8)
        writer.u64(hash)
        writer.raw(key)
        writer.u32(source); writer.u32(UInt32(record.bytes))
        writer.u32(UInt32(record.width)); writer.u32(UInt32(record.height))
        writer.u32(JournalFormat.templateCheck(template))
        writer.raw([UInt8(path.count & 0xff), UInt8(path.count >> 8), record.format.storedCode,
                    (row == nil ? 0 : 1) | (record.placeholder == nil ? 0 : 2) | (record.cropBox == nil ? 0 : 4)
                        | (record.owesPlaceholder ? 8 : 0)])
        writer.raw(JournalFormat.raw(hex: record.sha256) ?? [UInt8](repeating: 0, count: 32))
        writer.recordStamp(recordStamp)
        writer.stamp(outStamp)
        if let row { writer.i64(row) }
        if let box = record.cropBox {
            for value in [box.x, box.y, box.width, box.height] { writer.u32(UInt32(value)) }
        }
        writer.raw(path)
        if let placeholder = record.placeholder {
            let rgb = UInt32(placeholder.dominant.dropFirst(), radix: 16) ?? 0
            writer.raw([UInt8(rgb >> 16 & 0xff), UInt8(rgb >> 8 & 0xff), UInt8(rgb & 0xff), UInt8(placeholder.thumbHash.count)])
            writer.raw(placeholder.thumbHash)
            writer.raw([UInt8(placeholder.lqip.count & 0xff), UInt8(placeholder.lqip.count >> 8)])
            writer.raw(placeholder.lqip)
        }
    }

    /// The size of the entry at `offset`, whose fixed part is known to be there.
    static func size(_ reader: JournalReader, at offset: Int) -> Int {
        let beforePlaceholder = fixedSize + optionalSize(flags: reader.bytes[offset + flagsAt])
            + Int(reader.u16(offset + pathLengthAt))
        guard reader.bytes[offset + flagsAt] & 2 == 2 else { return beforePlaceholder }
        return beforePlaceholder + (placeholderSize(reader, at: offset + beforePlaceholder, end: reader.bytes.count) ?? 0)
    }

    /// The bytes of the placeholder at `at`; nil when its lengths run past `end`.
    static func placeholderSize(_ reader: JournalReader, at: Int, end: Int) -> Int? {
        guard at + 4 <= end else { return nil }
        let hashLength = Int(reader.bytes[at + 3])
        guard at + 4 + hashLength + 2 <= end else { return nil }
        let size = 4 + hashLength + 2 + Int(reader.u16(at + 4 + hashLength))
        return at + size <= end ? size : nil
    }

    /// The bytes of the fields `flags` says follow the fixed part: a row number, a crop box.
    static func optionalSize(flags: UInt8) -> Int {
        (flags & 1 == 1 ? 8 : 0) + (flags & 4 == 4 ? 16 : 0)
    }

    /// Whether `proof` (an entry's bytes from `proofAt` on, as stored) is whole: its length is
    /// what its fixed fields say.
    static func isWhole(proof: UnsafeRawBufferPointer) -> Bool {
        guard proof.count >= fixedSize - proofAt else { return false }
        let reader = JournalReader(bytes: proof)
        let flags = reader.bytes[flagsAt - proofAt]
        let beforePlaceholder = fixedSize - proofAt + optionalSize(flags: flags) + Int(reader.u16(pathLengthAt - proofAt))
        guard flags & 2 == 2 else { return proof.count == beforePlaceholder }
        guard let placeholder = placeholderSize(reader, at: beforePlaceholder, end: proof.count) else { return false }
        return proof.count == beforePlaceholder + placeholder
    }

    /// Whether the entry at `offset` is for the template whose check is `check`.
    static func isFor(templateCheck check: UInt32, _ reader: JournalReader, at offset: Int) -> Bool {
        reader.u32(offset + templateCheckAt) == check
    }

    /// The row the entry at `offset` is keyed by, if its template names `{row}`.
    static func row(_ reader: JournalReader, at offset: Int) -> Int64? {
        reader.bytes[offset + flagsAt] & 1 == 1 ? reader.i64(offset + fixedSize) : nil
    }

    /// The output record the entry at `offset` holds; nil for a format this version lacks.
    static func record(_ reader: JournalReader, at offset: Int) -> OutputRecord? {
        guard let format = OutputFormat(storedCode: reader.bytes[offset + formatAt]) else { return nil }
        var cropBox: CropBox?
        if reader.bytes[offset + flagsAt] & 4 == 4 {
            let at = offset + fixedSize + (reader.bytes[offset + flagsAt] & 1 == 1 ? 8 : 0)
            cropBox = CropBox(x: Int(reader.u32(at)), y: Int(reader.u32(at + 4)), width: Int(reader.u32(at + 8)),
                              height: Int(reader.u32(at + 12)))
        }
        return OutputRecord(sha256: reader.hex(offset + shaAt), width: Int(reader.u32(offset + widthAt)),
                            height: Int(reader.u32(offset + heightAt)), format: format,
                            bytes: Int(reader.u32(offset + bytesAt)),
                            owesPlaceholder: reader.bytes[offset + flagsAt] & 8 == 8, cropBox: cropBox)
    }

    /// The placeholder of the entry at `offset`, if it holds one (read only by a run that reports
    /// placeholders).
    static func placeholder(_ reader: JournalReader, at offset: Int) -> Placeholder? {
        guard reader.bytes[offset + flagsAt] & 2 == 2 else { return nil }
        let at = offset + fixedSize + optionalSize(flags: reader.bytes[offset + flagsAt]) + Int(reader.u16(offset + pathLengthAt))
        let bytes = reader.bytes
        let hashLength = Int(bytes[at + 3])
        let lqipAt = at + 4 + hashLength + 2
        let lqipLength = Int(reader.u16(at + 4 + hashLength))
        return Placeholder(dominant: "#" + ContentDigest.hex(bytes[at..<(at + 3)]),
                           thumbHash: Array(bytes[(at + 4)..<(at + 4 + hashLength)]),
                           lqip: Array(bytes[lqipAt..<(lqipAt + lqipLength)]))
    }

    /// The out path of the entry at `offset`.
    static func path(_ reader: JournalReader, at offset: Int) -> String {
        let start = offset + fixedSize + optionalSize(flags: reader.bytes[offset + flagsAt])
        return reader.string(start, Int(reader.u16(offset + pathLengthAt)))
    }
}
