/// One page of a site in the report's `pages` section: what `thumbgen site` did with each of
/// its `<img>` elements, and the bytes a browser fetched for it before and may fetch after.
public struct SitePageReport: Encodable, Sendable, Equatable {
    /// What became of the page.
    public enum Status: String, Encodable, Sendable {
        /// Written again: an element's markup changed.
        case rewritten
        /// Already as this run would write it (or nothing in it to rewrite).
        case unchanged
        /// Left as it was, whatever its elements: not UTF-8, unreadable, or changed while
        /// thumbgen ran (`reason`).
        case untouched
    }

    /// One `<img>`.
    public struct Element: Encodable, Sendable, Equatable {
        /// What became of it.
        public enum Status: String, Encodable, Sendable {
            /// Given (or found with) its `<picture>`.
            case rewritten
            /// Left as written, for `reason` (a `SkipReason`): not a failure.
            case skipped
            /// Left as written because none of its fallback's outputs was made (the rows'
            /// errors are in `rows`), or because it names a preset there is not.
            case failed
        }

        /// The line of the page its tag starts on.
        public var line: Int
        /// Its `src` as written.
        public var src: String
        public var status: Status
        /// Why it was skipped or failed.
        public var reason: String?
        /// The preset its outputs were made with (its `data-thumbgen-preset`, else a path rule).
        public var preset: String?
        /// The size of the file its `src` names: what a browser fetched before.
        public var bytesBefore: Int?
        /// The widths rendered, narrowest first, and the bytes of each in each format (in the
        /// same order): what a browser may fetch now, one candidate of one format.
        public var widths: [Int]?
        public var bytesAfter: [String: [Int]]?
        /// Where its tag starts in the page: the order the report lists elements in (a minified
        /// page has them all on one line). Not written.
        var position = 0

        enum CodingKeys: String, CodingKey {
            case line, src, status, reason, preset, widths
            case bytesBefore = "bytes_before", bytesAfter = "bytes_after"
        }
    }

    /// Relative to the site's folder.
    public var page: String
    public var status: Status
    /// Why the page was left untouched.
    public var reason: String?
    /// Its elements in the order written.
    public var elements: [Element]
}
