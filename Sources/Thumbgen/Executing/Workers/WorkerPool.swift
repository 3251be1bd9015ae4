import Foundation
import Synchronization

/// The run's worker processes: started when a unit needs one and none is idle, reused, and
/// replaced after `maxUnits` units or once one holds more memory than `recycleAbove`, so
/// that whatever a decoder leaks or fragments goes with its process.
final class WorkerPool: Sendable {
    /// How workers are started and when they are replaced.
    struct Settings: Sendable {
        /// The thumbgen binary (the parent's own).
        var executable: String
        var environment: [String: String]
        var setup: WorkerProtocol.Setup
        var maxUnits = 1000
        var recycleAbove: Int64 = 512 << 20
    }

    let settings: Settings
    private let state = Mutex(State())

    private struct State {
        var idle: [WorkerProcess] = []
        var live: [ObjectIdentifier: WorkerProcess] = [:]
        var stopped = false
        /// Whether `prestart` has run (it runs once).
        var prestarted = false
        /// Workers being started ahead of need; a checkout waits for one rather than start
        /// another.
        var starting = 0
    }

    /// Every pool of the process, so that an exit at once (a second signal) can stop all
    /// workers first.
    private static let pools = Mutex<[ObjectIdentifier: WorkerPool]>([:])

    /// A pool that starts workers as `settings` say.
    init(settings: Settings) {
        self.settings = settings
        // A worker that dies leaves a pipe without a reader: the write fails with EPIPE
        // instead of ending the run.
        signal(SIGPIPE, SIG_IGN)
        Self.pools.withLock { $0[ObjectIdentifier(self)] = self }
    }

    /// Starts one worker in the background, once, as soon as the run knows it will render:
    /// its start-up (about 50 ms of CPU) then overlaps the hashing or download of the first
    /// source instead of following it. Only one: a run may need no more.
    func prestart() {
        let first = state.withLock { state -> Bool in
            guard !state.prestarted, !state.stopped else { return false }
            state.prestarted = true
            state.starting += 1
            return true
        }
        guard first else { return }
        Thread.detachNewThread { [self] in
            let worker = try? start()
            state.withLock { state in
                state.starting -= 1
                if let worker, !state.stopped { state.idle.append(worker) }
            }
        }
    }

    /// An idle worker, or a new one.
    func checkout() throws(WorkerStartError) -> WorkerProcess {
        while true {
            let (reused, wait) = state.withLock { state -> (WorkerProcess?, Bool) in
                (state.idle.popLast(), state.starting > 0)
            }
            if let reused { return reused }
            guard wait else { break }
            usleep(1000)  // a worker being started ahead is ready within milliseconds
        }
        return try start()
    }

    /// A new worker, counted as live.
    private func start() throws(WorkerStartError) -> WorkerProcess {
        if state.withLock({ $0.stopped }) { throw WorkerStartError("the run is stopping") }
        let worker = try WorkerProcess(executable: settings.executable, environment: settings.environment,
                                       setup: settings.setup)
        let stopped = state.withLock { state -> Bool in
            state.live[ObjectIdentifier(worker)] = worker
            return state.stopped
        }
        if stopped { worker.stop() }
        return worker
    }

    /// Takes back a worker that finished its unit cleanly: kept for the next, or replaced.
    func checkin(_ worker: WorkerProcess) {
        worker.units += 1
        let keep = worker.units < settings.maxUnits && worker.residentBytes <= settings.recycleAbove
        let stopped = state.withLock { state -> Bool in
            if keep && !state.stopped { state.idle.append(worker) }
            return state.stopped
        }
        if !keep || stopped { retire(worker) }
    }

    /// Ends a worker that crashed, overran or grew too large (it is killed if still running).
    func discard(_ worker: WorkerProcess) {
        worker.stop()
        worker.wait()
        state.withLock { _ = $0.live.removeValue(forKey: ObjectIdentifier(worker)) }
    }

    /// Kills every worker at once (the run is cancelled); no new one starts.
    func stopAll() {
        let live = state.withLock { state -> [WorkerProcess] in
            state.stopped = true
            state.idle = []
            return Array(state.live.values)
        }
        live.forEach { $0.stop() }
    }

    /// Lets the idle workers exit (their input closes) and waits for them.
    func finish() {
        // A worker still being started ahead would otherwise join the idle ones after this.
        while state.withLock({ $0.starting > 0 }) { usleep(1000) }
        let idle = state.withLock { state -> [WorkerProcess] in
            defer { state.idle = [] }
            return state.idle
        }
        idle.forEach(retire)
        Self.pools.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    /// Kills the workers of every pool in the process: for an exit that cannot wait.
    static func stopEveryWorker() {
        pools.withLock { $0 }.values.forEach { $0.stopAll() }
    }

    private func retire(_ worker: WorkerProcess) {
        worker.finish()
        // It exits when its input closes; one that does not (stuck in C) must not hold the run.
        if !worker.exits(within: .seconds(2)) { worker.stop() }
        worker.wait()
        state.withLock { _ = $0.live.removeValue(forKey: ObjectIdentifier(worker)) }
    }
}
