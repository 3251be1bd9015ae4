extension ThumbnailFailure {
    /// The failure for a row the manifest parser refused.
    init(_ error: RowError) {
        self.init(.invalidRow, error.detail)
    }
}
