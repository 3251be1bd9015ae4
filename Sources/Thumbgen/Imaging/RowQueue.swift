import Foundation

/// The prepared rows of one source still to make, in order, handed out one at a time to
/// whichever thread asks (`SourceRender.drain`), with the outputs other rows copy.
final class RowQueue: @unchecked Sendable {
    private let lock = NSLock()
    /// Reversed, so that the next row is the last element.
    private var pending: [(Int, Result<PreparedRow, ThumbnailFailure>)]
    private var made: [Int: SourceRender.Output] = [:]
    /// The rows whose outputs other rows take (`PreparedRow.sameAs`): only theirs are kept.
    private let copied: Set<Int>

    /// The row whose output's pixels the source's placeholder is made from: the smallest
    /// output rendered here (not passed through, not another row's copy, not over
    /// `PlaceholderMaker.maximumPixels`), the first of equals; nil when there is none.
    let placeholderRow: Int?

    /// A queue of `rows`, made in the order given.
    init(_ rows: [(Int, Result<PreparedRow, ThumbnailFailure>)]) {
        pending = rows.reversed()
        copied = Set(rows.compactMap { try? $0.1.get().sameAs })
        var smallest: (index: Int, pixels: Int)?
        for (index, result) in rows {
            guard case .success(let row) = result, !row.passesThrough, row.sameAs == nil else { continue }
            let pixels = row.geometry.canvasWidth * row.geometry.canvasHeight
            guard pixels <= PlaceholderMaker.maximumPixels else { continue }
            if smallest == nil || pixels < smallest!.pixels || (pixels == smallest!.pixels && index < smallest!.index) {
                smallest = (index, pixels)
            }
        }
        placeholderRow = smallest?.index
    }

    /// The next row, taken out so that a group's pixels are freed once its last row is made,
    /// not held until every group is done; nil when none is left.
    func next() -> (Int, Result<PreparedRow, ThumbnailFailure>)? {
        lock.withLock { pending.popLast() }
    }

    /// Keeps row `index`'s output when another row takes it.
    func keep(_ output: SourceRender.Output, of index: Int) {
        guard copied.contains(index) else { return }
        lock.withLock { made[index] = output }
    }

    /// The output row `index` made, if it made one that is kept.
    func output(of index: Int) -> SourceRender.Output? {
        lock.withLock { made[index] }
    }
}
