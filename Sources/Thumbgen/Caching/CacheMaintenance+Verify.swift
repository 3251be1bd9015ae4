import Foundation

extension CacheMaintenance {
    /// What `verify` checked and removed.
    public struct VerifyResult: Sendable, Equatable {
        /// Entries checked, per kind.
        public var checked = PerKind<Int>()
        /// Entries removed as damaged, per kind.
        public var removed = PerKind<Int>()
    }

    /// Re-hashes every blob and removes those whose bytes do not match their name, then
    /// removes every record that does not decode (a flipped byte fails its checksum), is
    /// stored under the wrong name, or names a blob that is not there (a verdict names none).
    ///
    /// Blobs go first, so that a record naming a blob just found damaged goes too. Runs
    /// already drop a damaged entry when they meet it; this finds them all at once, before a
    /// copy of the cache is shared or trusted.
    public func verify() -> VerifyResult {
        var result = VerifyResult()
        for blob in layout.entries(.blobs) {
            result.checked.blobs += 1
            // Unreadable: removed meanwhile by another process, or not ours to judge.
            guard let actual = ContentDigest.ofFile(at: blob.path), actual != blob.name else { continue }
            if layout.remove(blob) == .removed { result.removed.blobs += 1 }
        }
        for entry in layout.entries(.outputs) {
            result.checked.outputs += 1
            guard !isSound(entry) else { continue }
            cache.outputs.changes.willChange()
            if layout.remove(entry) == .removed { result.removed.outputs += 1 }
        }
        cache.outputs.changes.settle()
        verifyIndex(into: &result)
        return result
    }

    /// Whether the output record at `entry` is one its index would use: whole, with the fields
    /// the index reads, under a key's name, and naming a blob that is present; or a whole
    /// verdict (an output that cannot fit its `max_output_bytes`), which names no blob.
    private func isSound(_ entry: CacheLayout.Entry) -> Bool {
        guard ContentDigest.isValid(entry.name), let record = record(entry) else { return false }
        guard let output = OutputIndex.decode(record) else { return OutputIndex.decodeVerdict(record) != nil }
        return cache.blobs.contains(output.sha256)
    }
}
