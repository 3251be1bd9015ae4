extension ThumbnailFailure {
    /// The failure for a libvips error met at `stage` (`decodeFailed` or `encodeFailed`).
    static func imaging(_ error: ImagingError, src: String, stage: ErrorCode) -> ThumbnailFailure {
        switch error {
        case .unsupportedFormat:
            return ThumbnailFailure(.unsupportedFormat, "\(src): not a JPEG, PNG, WebP, GIF, TIFF, "
                                    + "HEIF/AVIF or JPEG XL image")
        case .libvips(let operation, let message):
            return ThumbnailFailure(stage, "\(src): \(operation): \(message)")
        case .overLimit:
            return ThumbnailFailure(.tooLarge, "\(src): \(error)")
        case .timedOut:
            return ThumbnailFailure(.timeout, "\(src): \(error)")
        case .overBudget:
            return ThumbnailFailure(.overBudget, "\(src): \(error)")
        case .pageOutOfRange:
            // The row asks for what the source lacks, as a bad cell does.
            return ThumbnailFailure(.invalidRow, "\(src): \(error)")
        }
    }
}
