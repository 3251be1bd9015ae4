import Foundation

/// The scaled pixels (`ThumbnailRenderer`'s crop, resample and colour) that several rows of one
/// decode need alike, made into memory once by the first row to ask and read by the others:
/// a size written in two formats resamples once, not twice.
///
/// Each row still reads exactly the pixels it would have made alone (libvips evaluates the same
/// operations either way, only once), so its bytes do not depend on which rows share.
final class SharedScale: @unchecked Sendable {
    private let lock = NSLock()
    private var made: Result<VipsImageRef, ImagingError>?

    /// What decides the scaled pixels: two rows whose keys are equal need the same ones.
    struct Key: Hashable {
        /// The region cut out, in the decoded image's pixels.
        var x: Int, y: Int, width: Int, height: Int
        /// The size it is resampled to.
        var scaledWidth: Int, scaledHeight: Int
        /// The resampling kernel.
        var kernel: Kernel
        /// Whether a grey source stays grey (the format stores grey and no colour is painted in).
        var grey: Bool
        /// The colour the pixels are converted to.
        var colour: ColourTarget
    }

    /// The pixels: those the first row made, or what `make` makes now for the rows to come.
    /// A failure is kept too and given to every later row: the decode may stream and be read
    /// once, so a second try would meet a half-read source and a misleading error. Rows that
    /// ask while `make` runs wait for it.
    func pixels(_ make: () throws(ImagingError) -> VipsImageRef) throws(ImagingError) -> VipsImageRef {
        lock.lock()
        defer { lock.unlock() }
        if made == nil {
            do {
                made = .success(try make())
            } catch {
                made = .failure(error)
            }
        }
        switch made {
        case .success(let image): return image
        case .failure(let error): throw error
        case nil: throw .libvips(operation: "copy_memory", message: "no scaled pixels")
        }
    }
}
