import Foundation

/// Feeds a manifest (or a walk's rows) to a pipeline (or a dry run): every record becomes a job or a failed row.
public enum ManifestFeed {
    /// Reads `reader` to the end (or until the pipeline is cancelled), submitting each valid
    /// row and rejecting each bad one, then waits for every row to finish. `willRun` hears
    /// each record's line, in the order the rows run, before its row starts; `willReport`
    /// hears each in manifest order, before its row can end (the report's order: the same
    /// calls, unless the reader `regroups`; then only where it calls `onRead`). A manifest-wide error is
    /// thrown after the rows read before it have finished. With `shard`, a record of another
    /// shard is passed over before anything else (`Shard.owns`): it is never parsed, planned,
    /// counted or reported.
    public static func run(_ reader: some RecordSource, parser: RowParser, pipeline: some RowExecutor,
                           shard: Shard? = nil, willRun: ((Int) -> Void)? = nil,
                           willReport: ((Int) -> Void)? = nil) throws(ManifestError) {
        defer { pipeline.waitUntilFinished() }
        let regroups = reader.regroups
        if regroups { reader.onRead = willReport }
        // Rows from a slow pipe start as they come, not once a batch has filled.
        reader.onWait = { pipeline.flush() }
        while !pipeline.isCancelled, let entry = try reader.next() {
            if let shard, !shard.owns(entry) { continue }
            let line = entry.lineAndSource.line
            willRun?(line)
            if !regroups { willReport?(line) }
            switch entry {
            case .failure(let error):
                pipeline.reject(.failed(row: error.row, id: String(error.row), src: "",
                                        ThumbnailFailure(error)))
            case .success(let record):
                switch parser.parse(record) {
                case .success(let request):
                    pipeline.submit(request)
                case .failure(let error):
                    pipeline.reject(.failed(
                        row: record.line, id: record.values[.id] ?? String(record.line),
                        src: SourceLogin.split(record.values[.src] ?? "").shown, ThumbnailFailure(error)))
                }
            }
        }
    }
}
