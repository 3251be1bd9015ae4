import Foundation

/// Checks a local source before libvips sees it, for errors that name the real problem.
enum LocalFileCheck {
    /// The failure for `path`, or nil when it is a readable regular file of at most `maxBytes`.
    static func failure(path: String, src: String, maxBytes: Int64) -> ThumbnailFailure? {
        if case .failure(let failure) = check(path: path, src: src, maxBytes: maxBytes) { return failure }
        return nil
    }

    /// What `stat` says of `path` when it is a readable regular file of at most `maxBytes`
    /// (the planner reads its stamp from it), else the failure.
    /// The failure of a row whose local source no longer has the stamp it had when it was
    /// hashed: the pixels may come from other bytes, which must not be cached (nor reported)
    /// under the old digest. Nil when `stamp` is nil (the file was not hashed) or still holds.
    static func changedWhileRead(path: String?, stamp: FileIndex.Stamp?, src: String) -> ThumbnailFailure? {
        guard let stamp, let path, FileIndex.Stamp.of(path) != stamp else { return nil }
        return ThumbnailFailure(.sourceUnreadable, "\(src): the file changed while it was being read; run again")
    }

    static func check(path: String, src: String, maxBytes: Int64) -> Result<stat, ThumbnailFailure> {
        .init { () throws(ThumbnailFailure) -> stat in try checked(path: path, src: src, maxBytes: maxBytes) }
    }

    private static func checked(path: String, src: String, maxBytes: Int64) throws(ThumbnailFailure) -> stat {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ThumbnailFailure(.sourceNotFound, "\(src): no such file (\(path))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ThumbnailFailure(.sourceUnreadable, "\(src): not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            throw ThumbnailFailure(.sourceUnreadable, "\(src): permission denied")
        }
        guard info.st_size > 0 else {
            throw ThumbnailFailure(.unsupportedFormat, "\(src): the file is empty")
        }
        guard Int64(info.st_size) <= maxBytes else {
            throw ThumbnailFailure(.tooLarge, "\(src): \(info.st_size) bytes is over the limit of "
                                    + "\(maxBytes) (--max-bytes)")
        }
        return info
    }
}
