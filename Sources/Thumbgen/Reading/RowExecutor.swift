/// What a manifest's rows are fed to: the pipeline that makes the outputs, or the dry run
/// that only says what the pipeline would do.
public protocol RowExecutor: AnyObject, Sendable {
    /// Takes a valid row.
    func submit(_ request: ThumbnailRequest)
    /// Reports a row that failed before it could become a job (a bad row in the manifest).
    func reject(_ result: RowResult)
    /// Whether the run was cancelled (the reader stops feeding rows).
    var isCancelled: Bool { get }
    /// Stops taking rows (SIGINT, SIGTERM).
    func cancel()
    /// Starts the rows taken so far, which may wait to be batched with the next ones.
    func flush()
    /// Waits until every row taken has its result.
    func waitUntilFinished()
}
