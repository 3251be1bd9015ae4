import Foundation
import Synchronization
@testable import Thumbgen

/// A renderer double for pipelines run in process: it counts its calls and the rows each was
/// given, and before the real render (`SourceRenderer`) hears of them it can fail chosen rows
/// or swallow their outputs, as an imaging bug would. Rows are chosen by their `out` template.
final class CountingRenderer: SourceRendering {
    /// One call: the file rendered and the `out` templates of its rows.
    struct Call: Sendable, Equatable {
        var file: String
        var rows: [String]
    }

    private let log = Mutex<[Call]>([])
    private let failing: [String: ThumbnailFailure]
    private let swallowing: Set<String>

    /// A renderer that fails the rows `failing` names with their failures, and drops the
    /// outputs of the rows `swallowing` names (they end with neither output nor failure).
    init(failing: [String: ThumbnailFailure] = [:], swallowing: Set<String> = []) {
        self.failing = failing
        self.swallowing = swallowing
    }

    /// The calls so far, in order.
    var calls: [Call] { log.withLock { $0 } }

    func render(path: String, rows: [SourceRender.Row], decoder: SourceDecoder, makesPlaceholders: Bool,
                cancellation: Cancellation?, listener: SourceRender.Listener) {
        log.withLock { $0.append(Call(file: (path as NSString).lastPathComponent, rows: rows.map(\.outTemplate))) }
        for (index, row) in rows.enumerated() {
            if let failure = failing[row.outTemplate] { listener.failure(index, failure) }
        }
        var passed = listener
        passed.wants = { [failing] index in failing[rows[index].outTemplate] == nil && listener.wants(index) }
        passed.output = { [swallowing] index, output in
            guard !swallowing.contains(rows[index].outTemplate) else { return }
            listener.output(index, output)
        }
        SourceRenderer().render(path: path, rows: rows, decoder: decoder, makesPlaceholders: makesPlaceholders,
                                cancellation: cancellation, listener: passed)
    }
}
