/// Where a run makes one source's rows' outputs in this process (`--isolation none`):
/// `SourceRender` by default. A capability, so that a test can hand the pipeline a double
/// that counts the renders, or drops or fails a row, and see what the executor makes of it
/// without running the binary.
protocol SourceRendering: Sendable {
    /// Renders `rows` from the file at `path` with `decoder`, making the source's placeholder
    /// when `makesPlaceholders` says so, telling `listener` as each row ends; stops when
    /// `cancellation` is pressed.
    func render(path: String, rows: [SourceRender.Row], decoder: SourceDecoder, makesPlaceholders: Bool,
                cancellation: Cancellation?, listener: SourceRender.Listener)
}

/// The renderer a pipeline uses unless told otherwise: `SourceRender.run`, the same call a
/// worker process makes for a unit.
struct SourceRenderer: SourceRendering {
    /// Runs `SourceRender` over `rows`.
    func render(path: String, rows: [SourceRender.Row], decoder: SourceDecoder, makesPlaceholders: Bool,
                cancellation: Cancellation?, listener: SourceRender.Listener) {
        SourceRender(decoder: decoder, cancellation: cancellation, makesPlaceholders: makesPlaceholders)
            .run(path: path, rows: rows, listener: listener)
    }
}
