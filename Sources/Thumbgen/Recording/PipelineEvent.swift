/// Something that happens to a row on its way to a result (the result itself is a `RowResult`).
public enum PipelineEvent: Sendable {
    /// The row was admitted into the pipeline.
    case started(ThumbnailRequest)
    /// The row's source was opened and its header read, by the run's `decode`th decode (rows
    /// that share a decode have the same number).
    case loaded(ThumbnailRequest, RowResult.SourceInfo, decode: Int)
}
