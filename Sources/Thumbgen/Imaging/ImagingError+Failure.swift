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
        case .overBudget(let bytes, let limit, let quality):
            return .overBudget(OutputOverBudget(bytes: bytes, limit: limit, quality: quality), src: src)
        case .pageOutOfRange:
            // The row asks for what the source lacks, as a bad cell does.
            return ThumbnailFailure(.invalidRow, "\(src): \(error)")
        }
    }
}
