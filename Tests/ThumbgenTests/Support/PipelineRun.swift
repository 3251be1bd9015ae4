import Foundation
@testable import Thumbgen

/// Runs rows through a `Pipeline` in process and returns their results.
enum PipelineRun {
    /// One row per `(out, width)`, all from `source` (whose `src` cell is `sourceText`), `width`
    /// pixels wide, numbered from 2 as a manifest's data rows are; returns the results in row
    /// order once the pipeline has finished.
    static func widths(_ rows: [(out: String, width: Int)], of source: Thumbgen.SourceLocation, sourceText: String,
                       configuration: PipelineConfiguration) throws -> [RowResult] {
        let collector = ResultCollector()
        let pipeline = try Pipeline(configuration: configuration, onResult: collector.add)
        for (index, row) in rows.enumerated() {
            var spec = ThumbnailSpec()
            spec.box = TargetBox(width: row.width, height: nil)
            pipeline.submit(ThumbnailRequest(row: index + 2, id: String(index + 2), sourceText: sourceText,
                                             source: source, outTemplate: row.out, spec: spec))
        }
        pipeline.waitUntilFinished()
        return collector.all.sorted { $0.row < $1.row }
    }
}
