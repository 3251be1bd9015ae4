/// Where under `--out` an output goes: its row's `out` template filled in with the output's
/// facts. The planner asks it to find a file already holding an output; delivery, to write one.
enum OutputPlacement {
    /// The path under `--out` of the output `record` describes, for `request`: its `out`
    /// template filled in.
    static func path(of record: OutputRecord, for request: ThumbnailRequest) -> Result<String, ThumbnailFailure> {
        let values = OutputPathTemplate.Values(
            name: request.source.stem, width: record.width, height: record.height,
            fit: request.spec.fit, ext: record.format.fileExtension,
            hash8: String(record.sha256.prefix(8)), row: request.row)
        do {
            return .success(try OutputPathTemplate.render(request.outTemplate, values))
        } catch {
            return .failure(ThumbnailFailure(
                .outputEscapes, "\(request.sourceText): out '\(request.outTemplate)' \(error.reason)"))
        }
    }
}
