import Foundation
import Synchronization

/// Bounds one stage of a row's work in time (`--timeout`), and lets a cancelled run stop it.
///
/// libvips checks an image's kill flag between tiles, so killing the image a stage evaluates
/// ends most work within one tile. Some C code never looks at that flag: libaom's AV1 encoder
/// inside an AVIF save, a loader parsing a hostile header. When a stage is still running
/// `grace` seconds past its deadline, the watch gives up waiting: it reports the stage as timed
/// out through `onOverrun`, so that the stage's rows end on time and the run can finish, and
/// leaves the thread to return on its own (whatever it returns then is dropped). Only a process
/// boundary could take that core back; in process, the row's result is what can be kept true.
///
/// The watch kills only images its own stage made: never a decoded image that other rows
/// share, so that one row's timeout or cancel cannot fail another row.
final class StageWatch: @unchecked Sendable {
    /// Seconds past the deadline that code ignoring the kill flag is waited for.
    static let grace = 1.0

    /// Stages that overran their deadline and whose threads have not returned yet: a finished
    /// run does not wait for them.
    static var overrunning: Int { stuck.load(ordering: .relaxed) }
    private static let stuck = Atomic<Int>(0)

    private struct State {
        var step: String
        weak var target: VipsImageRef?
        var running = true
        var fired = false
        var cancelled = false
        var overran = false
        /// Dropped when the stage ends, so that nothing it holds (rows) outlives the stage.
        var onOverrun: (@Sendable (ImagingError) -> Void)?
    }

    private let state: Mutex<State>
    private let seconds: Double
    private let deadline: ContinuousClock.Instant

    private init(step: String, seconds: Double, onOverrun: @escaping @Sendable (ImagingError) -> Void) {
        state = Mutex(State(step: step, onOverrun: onOverrun))
        self.seconds = seconds
        deadline = .now + .seconds(seconds)
    }

    /// Runs `body`, starting at `step`, under a deadline of `seconds` and `cancellation`.
    /// Throws `timedOut` naming the step reached when the deadline stopped the work; calls
    /// `onOverrun` (from another thread) when the work ignores the deadline for `grace` more.
    static func run<T>(_ step: String, seconds: Double, cancellation: Cancellation?,
                       onOverrun: @escaping @Sendable (ImagingError) -> Void,
                       _ body: (StageWatch) throws(ImagingError) -> T) throws(ImagingError) -> T {
        let watch = StageWatch(step: step, seconds: seconds, onOverrun: onOverrun)
        Monitor.shared.add(watch)
        defer { Monitor.shared.remove(watch) }
        let result: Result<T, ImagingError>
        do {
            result = .success(try withCancellation(cancellation, watch) { () throws(ImagingError) -> T in
                try body(watch)
            })
        } catch {
            result = .failure(error)
        }
        let (fired, overran, step) = watch.state.withLock { state in
            state.running = false
            state.onOverrun = nil
            return (state.fired, state.overran, state.step)
        }
        if overran { stuck.subtract(1, ordering: .relaxed) }
        if overran || (fired && (try? result.get()) == nil) {
            throw .timedOut(operation: step, seconds: seconds)
        }
        return try result.get()
    }

    private static func withCancellation<T>(_ cancellation: Cancellation?, _ watch: StageWatch,
                                            _ body: () throws(ImagingError) -> T) throws(ImagingError) -> T {
        guard let cancellation else { return try body() }
        return try cancellation.whileRegistered({ [watch] in watch.cancel() }, body)
    }

    /// Whether the deadline has passed: a failure met after it is the deadline's doing.
    var isPastDeadline: Bool { state.withLock { $0.fired } }

    /// Notes that the stage moved on to `step`, evaluating `image` (which must be the stage's
    /// own, not a shared one): the kill reaches it from now on, at once if the deadline passed
    /// or the run was cancelled already.
    func enter(_ step: String, evaluating image: VipsImageRef? = nil) {
        let killNow = state.withLock { state -> Bool in
            state.step = step
            state.target = image
            return state.fired || state.cancelled
        }
        if killNow { image?.kill() }
    }

    /// Looks at the clock: kills the stage's image once its deadline has passed, and gives up
    /// on the stage `grace` seconds later.
    fileprivate func check(now: ContinuousClock.Instant) {
        guard now >= deadline else { return }
        let (target, overrun) = state.withLock { state -> (VipsImageRef?, (String, @Sendable (ImagingError) -> Void)?) in
            guard state.running else { return (nil, nil) }
            var target: VipsImageRef?
            if !state.fired {
                state.fired = true
                target = state.target
            }
            guard now >= deadline + .seconds(Self.grace), !state.overran, let onOverrun = state.onOverrun else {
                return (target, nil)
            }
            state.overran = true
            // Counted under the lock, so that the stage's own return cannot uncount it first.
            Self.stuck.add(1, ordering: .relaxed)
            return (target, (state.step, onOverrun))
        }
        target?.kill()
        if let (step, onOverrun) = overrun { onOverrun(.timedOut(operation: step, seconds: seconds)) }
    }

    private func cancel() {
        state.withLock { state -> VipsImageRef? in
            state.cancelled = true
            return state.target
        }?.kill()
    }

    /// One thread that looks at every running stage's deadline every 20 ms, asleep while no
    /// stage runs. A timer per stage would keep each stage's closures (and the rows they hold)
    /// alive until its deadline, long after the stage ended: 100,000 small rows a minute then
    /// held their rows for the whole `--timeout`.
    private final class Monitor: @unchecked Sendable {
        static let shared = Monitor()
        private let condition = NSCondition()
        private var watches: [ObjectIdentifier: StageWatch] = [:]
        private var started = false

        func add(_ watch: StageWatch) {
            condition.lock()
            watches[ObjectIdentifier(watch)] = watch
            if !started {
                started = true
                let thread = Thread { [self] in loop() }
                thread.name = "thumbgen.stage-watch"
                thread.start()
            }
            condition.signal()
            condition.unlock()
        }

        func remove(_ watch: StageWatch) {
            condition.lock()
            watches[ObjectIdentifier(watch)] = nil
            condition.unlock()
        }

        private func loop() {
            while true {
                condition.lock()
                while watches.isEmpty { condition.wait() }
                let running = Array(watches.values)
                condition.unlock()
                let now = ContinuousClock.now
                running.forEach { $0.check(now: now) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }
}
