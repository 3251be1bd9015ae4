// sources: Caching/CacheRecord.swift Caching/OutputIndex.swift Caching/URLIndex.swift Caching/FileIndex.swift Caching/RecipeHistory.swift Caching/OutputKey.swift Support/ContentDigest.swift Caching/CacheLayout.swift Support/Cancellation.swift Model/OutputFormat.swift Model/SourceLocation.swift Model/ThumbnailRequest.swift Model/ThumbnailSpec.swift Model/CropRect.swift Model/EncodingOptions.swift Model/Fit.swift Model/Gravity.swift Model/Kernel.swift Model/Priority.swift Model/RGBAColor.swift Model/TargetBox.swift Imaging/ImagingLimits.swift Imaging/VipsRuntime.swift Imaging/VipsErrorBuffer.swift Imaging/ImagingError.swift Imaging/FormatSniffer.swift Support/DescriptorIO.swift Support/LockedFile.swift Support/TemporaryFile.swift Support/TemporaryFiles.swift Support/TemporaryName.swift Support/TemporarySweeper.swift Caching/Store/IndexDatabase.swift Caching/Store/UseLog.swift Support/FileStamp.swift Model/ShrinkOnLoadMode.swift Imaging/VipsModules.swift Caching/JournalFormat.swift Model/PathText.swift Caching/Store/IndexSchema.swift Caching/Store/IndexDatabase+Opening.swift Caching/Store/StoreHealth.swift Caching/Store/Generation.swift Model/QualitySetting.swift Model/Placeholder.swift Model/FocusPoint.swift Model/Reorientation.swift Model/Sharpening.swift Model/CropBox.swift Model/ColourOutput.swift Model/KeptMetadata.swift
// swiftpm: Crypto CVips CSQLite
import Foundation

// The sources up to ContentDigest are what is fuzzed; the rest are there only because those
// files also hold the code that reads and writes entries (`CacheLayout`) and makes keys from a
// request (`OutputKey`, which names libvips' version): none of it runs here.

/// The cache's record parsers over any bytes, as a cache folder that another process, another
/// machine or a bad disk wrote may hold them: `CacheRecord(decoding:)`, then each index's
/// decoder over the fields it gives, and the output keys a recipe history holds, split into
/// their parts as `thumbgen explain` does.
///
/// Almost every mutation breaks the record's checksum, which would leave everything behind it
/// unreached; so each input is also tried resealed, with its checksum line made right.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheRecord(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    decodeEverything(bytes)
    decodeEverything(resealed(bytes))
    return 0
}

/// Decodes `bytes` every way the cache does; traps on a record that does not survive being
/// written again.
func decodeEverything(_ bytes: [UInt8]) {
    guard let record = CacheRecord(decoding: bytes) else { return }
    // What a reader believed, a writer must store unchanged (`RecipeHistory.note` rewrites the
    // records it reads).
    precondition(CacheRecord(decoding: record.encoded) == record, "record does not round-trip")
    if let output = OutputIndex.decode(record) {
        precondition(ContentDigest.isValid(output.sha256), "output names no blob")
    }
    if let url = URLIndex.decode(record) {
        _ = url.isFresh(maxAge: 0, now: 1_700_000_000)
        _ = url.isFresh(maxAge: 60, now: 1_700_000_000)
        _ = URLIndex.name(for: url.url)
    }
    // A 0.2.0 local-file record, as the upgrade reads it (`LegacyIndexImport`).
    if let stamp = record["stamp"] { _ = FileIndex.Stamp(text: stamp) }
    if let history = RecipeHistory.decode(record) {
        for key in history.keys {
            _ = key["size"]
            if let first = history.keys.first { _ = key.changedParts(since: first) }
        }
    }
}

/// `bytes` with its checksum line (the last line that starts `check<TAB>`, and all after it)
/// replaced by the one `CacheRecord.encoded` would write: the first 16 hex digits of the
/// SHA-256 of everything before it.
func resealed(_ bytes: [UInt8]) -> [UInt8] {
    let newline = UInt8(ascii: "\n")
    let checkLine = Array("check\t".utf8)
    var body = bytes[...]
    var lineStart = bytes.startIndex
    while lineStart < bytes.endIndex {
        if bytes[lineStart...].starts(with: checkLine) { body = bytes[..<lineStart] }
        lineStart = (bytes[lineStart...].firstIndex(of: newline) ?? bytes.endIndex - 1) + 1
    }
    var sealed = Array(body)
    if let last = sealed.last, last != newline { sealed.append(newline) }
    sealed += checkLine + Array(ContentDigest.of(sealed).prefix(16).utf8) + [newline]
    return sealed
}
