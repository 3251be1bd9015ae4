import Foundation

extension CacheMaintenance {
    /// What `clear` removed.
    public struct ClearResult: Sendable, Equatable {
        /// Files removed: entries, run records and temporary files.
        public var files = 0
        /// Their bytes.
        public var bytes: Int64 = 0
    }

    /// Empties the cache, leaving its layout in place for the next run.
    ///
    /// `ROOT/v1` is first renamed aside in one step, so that no process ever sees half a
    /// cache (a run still holding an open entry keeps reading it; its next write fails or goes
    /// into the new layout), and only then deleted. It goes into a locked temporary folder, so a
    /// clear that is interrupted leaves a folder whose lock died with it, which the next clear
    /// removes as `TemporarySweeper` judges it (one named without a lock, by thumbgen 0.2.0,
    /// once unchanged for prune's hour).
    public func clear() throws(CacheError) -> ClearResult {
        let root = layout.root.path
        var result = ClearResult()
        TemporarySweeper.sweep(root, prefix: ".v1-cleared.", undecidedAfter: Self.grace)
        // The database is emptied, not removed: another process may have it open.
        let index = clearIndex()
        result.files += index.entries
        result.bytes += index.bytes
        guard FileManager.default.fileExists(atPath: layout.base) else { return try recreated(result) }
        guard let aside = TemporaryFolder.create(in: root, for: "v1-cleared") else {
            let reason = String(cString: strerror(errno))
            throw CacheError(description: "\(root): cannot clear the cache: \(reason)")
        }
        let moved = aside.path + "/v1"
        if rename(layout.base, moved) == 0 {
            // Raised again once the records are gone: a journal saved against the generation
            // `clearIndex` raised may have read them before.
            cache.outputs.changes.generation.raise()
            let tree = layout.tree(moved)
            result.files += tree.files
            result.bytes += tree.bytes
        } else if errno != ENOENT {
            let reason = String(cString: strerror(errno))
            layout.removeTree(aside.path)
            throw CacheError(description: "\(root): cannot clear the cache: \(reason)")
        }
        // Removed while still locked, so that no other clear takes it for a leftover meanwhile.
        layout.removeTree(aside.path)
        withExtendedLifetime(aside.lock) {}
        return try recreated(result)
    }

    /// `result`, once the cache's layout is made again.
    private func recreated(_ result: ClearResult) throws(CacheError) -> ClearResult {
        guard layout.create() else {
            throw CacheError(description: "\(layout.root.path): cannot create or write the cache directory")
        }
        return result
    }
}
