import Foundation

/// What planning one row learned of its local source, kept for the next row if it names the
/// same file: the rows of a batch (`Pipeline+Planning.swift`, `DryRun`) often share a source
/// (a `srcset`'s sizes), and on a warm run its `stat`, `access` and journal lookup were a
/// fifth of each row's cost, paid again for every size.
///
/// Reusing them is as safe as using them at all: the rows are planned microseconds apart, a
/// file that changes in between could as well have changed just after the first row's
/// `stat`, and a render notices a source that changed while it was read
/// (`LocalFileCheck.changedWhileRead`) whichever row saw it first.
struct LocalSourceMemo {
    private var path: String?
    private var checked: stat?
    private var journalSource: WarmJournal.Source??
    /// Recipes met by this thread's rows, whatever their source.
    var recipes = OutputKey.RecentRecipes()

    /// A memo that knows nothing yet.
    init() {}

    /// `LocalFileCheck.check` of `path`, or the last row's when it named the same file.
    mutating func check(path: String, src: String, maxBytes: Int64) -> Result<stat, ThumbnailFailure> {
        if path == self.path, let checked { return .success(checked) }
        (self.path, self.checked, journalSource) = (nil, nil, nil)
        let result = LocalFileCheck.check(path: path, src: src, maxBytes: maxBytes)
        // Only a success is kept: a failure's message names the row's own `src` text, which
        // another row may spell differently, and failures are rare enough to check afresh.
        if case .success(let info) = result {
            self.path = path
            checked = info
        }
        return result
    }

    /// The warm journal's source for the file last checked, looked up once.
    mutating func journalSource(path: String, _ lookUp: () -> WarmJournal.Source?) -> WarmJournal.Source? {
        guard path == self.path else { return lookUp() }
        if let journalSource { return journalSource }
        let found = lookUp()
        journalSource = .some(found)
        return found
    }
}
