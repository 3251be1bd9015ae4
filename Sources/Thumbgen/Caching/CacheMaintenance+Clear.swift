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
    /// into the new layout), and only then deleted. The aside folder has a temporary name, so a
    /// clear that is interrupted leaves something the next clear recognises and removes.
    public func clear() throws(CacheError) -> ClearResult {
        let root = layout.root.path
        let aside = root + "/" + TemporaryName.make(for: "v1-cleared")
        var result = ClearResult()
        if rename(layout.base, aside) == 0 {
            let tree = layout.tree(aside)
            result.files = tree.files
            result.bytes = tree.bytes
            layout.removeTree(aside)
        } else if errno != ENOENT {
            let reason = String(cString: strerror(errno))
            throw CacheError(description: "\(root): cannot clear the cache: \(reason)")
        }
        for name in layout.names(in: root) where name.hasPrefix(".v1-cleared.") {
            guard let leftover = layout.entry(at: root + "/" + name, name: name),
                  TemporaryName.isStale(name, modified: Date(timeIntervalSince1970: leftover.modified))
            else { continue }
            layout.removeTree(leftover.path)
        }
        guard layout.create() else {
            throw CacheError(description: "\(root): cannot create or write the cache directory")
        }
        return result
    }
}
