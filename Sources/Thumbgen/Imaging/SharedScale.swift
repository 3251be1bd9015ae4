import Foundation

/// The scaled pixels (`ThumbnailRenderer`'s crop, resample and colour) that several rows of one
/// decode need alike, made into memory once by the first row to ask and read by the others:
/// a size written in two formats resamples once, not twice.
///
/// Each row still reads exactly the pixels it would have made alone (libvips evaluates the same
/// operations either way, only once), so its bytes do not depend on which rows share.
final class SharedScale: @unchecked Sendable {
    private let lock = NSLock()
    private var made: VipsImageRef?

    /// What decides the scaled pixels: two rows whose keys are equal need the same ones.
    struct Key: Hashable {
        /// The region cut out, in the decoded image's pixels.
        var x: Int, y: Int, width: Int, height: Int
        /// The size it is resampled to.
        var scaledWidth: Int, scaledHeight: Int
        var kernel: Kernel
        /// Whether a grey source stays grey (the format stores grey and no colour is painted in).
        var grey: Bool
    }

    /// The pixels: those an earlier row made, or what `make` makes now, kept for the rows to
    /// come. A failure is not kept: the next row tries for itself and meets its own error.
    /// Rows that ask while `make` runs wait for it.
    func pixels(_ make: () throws(ImagingError) -> VipsImageRef) throws(ImagingError) -> VipsImageRef {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let image = try make()
        made = image
        return image
    }
}
