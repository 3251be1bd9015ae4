import Foundation

/// The `--html` page: every output of a run, failures with their reason, a summary on top.
///
/// (First cut: a plain list; the contact sheet proper replaces it.)
public final class ContactSheet: @unchecked Sendable {
    private let destination: URL
    private let outputDirectory: URL
    private var rows: [String] = []

    /// A sheet to be written at `destination`, showing outputs found under `outputDirectory`.
    public init(destination: URL, outputDirectory: URL) throws {
        self.destination = destination
        self.outputDirectory = outputDirectory
    }

    /// Adds one finished row; called by one thread at a time.
    public func add(_ result: RowResult) {
        rows.append("<li>\(result.row) \(result.status.rawValue)</li>")
    }

    /// Writes the page, with `summary` on top, atomically.
    public func finish(summary: RunSummary) throws {
        let page = "<!doctype html><meta charset=utf-8><title>thumbgen</title><p>\(summary.line)</p><ul>"
            + rows.joined() + "</ul>"
        try Data(page.utf8).write(to: destination, options: .atomic)
    }
}
