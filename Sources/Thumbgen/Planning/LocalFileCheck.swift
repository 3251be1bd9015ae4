import Foundation

/// Checks a local source before libvips sees it, for errors that name the real problem.
enum LocalFileCheck {
    /// The failure for `path`, or nil when it is a readable regular file of at most `maxBytes`.
    static func failure(path: String, src: String, maxBytes: Int64) -> ThumbnailFailure? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return ThumbnailFailure(.sourceNotFound, "\(src): no such file (\(path))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return ThumbnailFailure(.sourceUnreadable, "\(src): not a regular file")
        }
        guard access(path, R_OK) == 0 else {
            return ThumbnailFailure(.sourceUnreadable, "\(src): permission denied")
        }
        guard info.st_size > 0 else {
            return ThumbnailFailure(.unsupportedFormat, "\(src): the file is empty")
        }
        guard Int64(info.st_size) <= maxBytes else {
            return ThumbnailFailure(.tooLarge, "\(src): \(info.st_size) bytes is over the limit of "
                                    + "\(maxBytes) (--max-bytes)")
        }
        return nil
    }
}
