import Dispatch
import Synchronization

/// Stops a libvips evaluation (a decode into memory, an encode) that runs past its time, so
/// that one hostile file fails its row instead of holding a core for ever.
///
/// libvips checks an image's kill flag between tiles, so `kill()` ends the evaluation within
/// one tile's work. The timer holds the image weakly: a finished evaluation frees its pixels
/// at once, not when the timer fires.
enum EvaluationDeadline {
    private final class Watch: Sendable {
        weak let image: VipsImageRef?
        let state = Mutex<(running: Bool, fired: Bool)>((true, false))
        init(_ image: VipsImageRef) { self.image = image }
    }

    private static let timers = DispatchQueue(label: "thumbgen.evaluation-deadline")

    /// Runs `body`, which evaluates `image`, and kills the evaluation after `seconds`; an
    /// evaluation that fails after the kill throws `timedOut`, whatever error libvips gave.
    static func run<T>(_ operation: String, image: VipsImageRef, seconds: Double,
                       _ body: () throws(ImagingError) -> T) throws(ImagingError) -> T {
        let watch = Watch(image)
        let timer = DispatchWorkItem { [watch] in
            let fire = watch.state.withLock { state -> Bool in
                guard state.running else { return false }
                state.fired = true
                return true
            }
            if fire { watch.image?.kill() }
        }
        // Cancelled when the evaluation ends, so that a long run does not pile up timers.
        defer { timer.cancel() }
        timers.asyncAfter(deadline: .now() + seconds, execute: timer)
        let result: Result<T, ImagingError>
        do {
            result = .success(try body())
        } catch {
            result = .failure(error)
        }
        let fired = watch.state.withLock { state -> Bool in
            state.running = false
            return state.fired
        }
        if fired, case .failure = result { throw .timedOut(operation: operation, seconds: seconds) }
        return try result.get()
    }
}
