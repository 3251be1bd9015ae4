import Foundation

/// The `--html` page: every output of a run at display size with its facts, failures as cards
/// with their reason, a summary with status filters on top. One self-contained file: inline
/// style and script, nothing fetched from elsewhere.
///
/// Memory stays constant in the number of rows: each card is streamed, as its row finishes,
/// to a temporary file beside the page. The summary is known only at the end, so `finish`
/// writes head, summary, the streamed cards and tail to a second temporary and renames it into
/// place; a page is never seen half-written, and an interrupted run leaves neither file
/// (both are in `TemporaryFiles.shared`). Images are not embedded (ten thousand rows would make
/// a huge page): each `<img>` points at its output by a URL relative to the page's folder.
/// Cards are in completion order in the file; the page's script sorts them by `data-row`.
public final class ContactSheet: @unchecked Sendable {
    private let destination: URL
    private let folder: URL
    /// The cards so far, in completion order, under a locked temporary name beside the page.
    private let cards: TemporaryFile
    private var handle: FileHandle?
    /// The output folder as a URL relative to the page's folder, ending in `/`.
    private let outputURL: String
    /// Cards not yet handed to the file: written in blocks of about 64 KiB.
    private var pending = Data()
    /// The first failure to write a card, thrown by `finish` (`add` is called from the
    /// pipeline's result callback, which cannot throw).
    private var writeError: Error?

    /// A sheet to be written at `destination`, showing outputs found under `outputDirectory`;
    /// the page's folder is created if missing, like `--out`.
    public init(destination: URL, outputDirectory: URL) throws {
        self.destination = destination
        folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        TemporaryName.sweep(folder.path)
        guard let cards = TemporaryFile(in: folder.path, for: destination.lastPathComponent + ".cards",
                                        registry: .shared) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination.path])
        }
        self.cards = cards
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: cards.path))
        outputURL = Self.relativeURL(from: folder, to: outputDirectory)
    }

    deinit {
        // Not finished (the run stopped on an error): leave nothing behind.
        if let handle {
            try? handle.close()
            cards.discard()
        }
    }

    /// Adds one finished row; called by one thread at a time, in any order.
    public func add(_ result: RowResult) {
        guard writeError == nil else { return }
        pending.append(contentsOf: Self.card(for: result, outputURL: outputURL).utf8)
        if pending.count >= 1 << 16 { flush() }
    }

    /// Writes the page, with `summary` on top, atomically.
    public func finish(summary: RunSummary) throws {
        flush()
        defer { cards.discard() }
        let streamed = handle
        handle = nil
        try streamed?.close()
        if let writeError { throw writeError }

        guard let page = TemporaryFile(in: folder.path, for: destination.lastPathComponent, registry: .shared) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination.path])
        }
        do {
            let output = try FileHandle(forWritingTo: URL(fileURLWithPath: page.path))
            do {
                try write(summary: summary, to: output)
            } catch {
                try? output.close()
                throw error
            }
            try output.close()
            guard page.place({ rename($0, destination.path) == 0 }) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination.path])
            }
        } catch {
            page.discard()
            throw error
        }
    }

    /// Head and summary, the streamed cards copied a block at a time, then the tail.
    private func write(summary: RunSummary, to output: FileHandle) throws {
        try output.write(contentsOf: Data(Self.head(summary: summary).utf8))
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: cards.path))
        defer { try? input.close() }
        while let block = try input.read(upToCount: 1 << 20), !block.isEmpty {
            try output.write(contentsOf: block)
        }
        try output.write(contentsOf: Data(Self.tail.utf8))
    }

    private func flush() {
        guard let handle, !pending.isEmpty, writeError == nil else { return }
        do {
            try handle.write(contentsOf: pending)
        } catch {
            writeError = error
        }
        pending.removeAll(keepingCapacity: true)
    }

}
