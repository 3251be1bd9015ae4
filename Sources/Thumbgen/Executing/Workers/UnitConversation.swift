import Foundation

/// The parent's side of one unit in one worker: sends it, hands each row's output or failure
/// on as it comes, admits the decode's memory, and watches the clock, the worker's memory and
/// the run's cancellation. The watchdog is this loop: it wakes at least every `tick`.
struct UnitConversation {
    /// How the unit ended.
    enum Ending {
        /// The worker said `done`; it can take another unit.
        case done
        /// The worker died (crashed, or was killed from outside) at `place`.
        case died(WorkerProcess.Exit, at: Place)
        /// The stage at `place` ran past its deadline; the worker was killed.
        case overran(at: Place, seconds: Double)
        /// The worker's memory passed `limit` at `place`; it was killed.
        case outgrew(limit: Int64, estimate: Int64?, at: Place)
        /// The run was cancelled; the worker was killed.
        case cancelled

        /// Where the worker was when the unit ended early.
        var place: Place? {
            switch self {
            case .died(_, let place), .overran(let place, _), .outgrew(_, _, let place): place
            case .done, .cancelled: nil
            }
        }
    }

    /// The stage a worker last reported, and the unit's row it was for (nil: the whole
    /// unit's: opening and decoding).
    struct Place {
        var stage: WorkerStage
        var row: Int?
    }

    /// What the rows hear.
    struct Listener {
        var output: (WorkerProtocol.Output, Data) -> Void
        var failure: (WorkerProtocol.Failure) -> Void
        var loaded: (WorkerProtocol.Loaded) -> Void
    }

    var worker: WorkerProcess
    var budget: MemoryBudget
    /// Each stage's deadline (`--timeout`).
    var seconds: Double
    var cancellation: Cancellation?
    var listener: Listener
    static let tick = Duration.milliseconds(50)
    /// How long past the deadline a stage may run before its worker is killed: long enough
    /// for work that heeds libvips' kill flag (the worker's own `StageWatch` kills it at the
    /// deadline) to stop and say so, short enough that a hang costs little more than
    /// `--timeout`. The worker's watch would give up on C that ignores the flag only at
    /// `StageWatch.grace`; the parent does not wait for that.
    static let killDelay = 0.5

    private var stageAllowance: Duration { .seconds(seconds + Self.killDelay) }

    /// Runs `unit` to its end. Memory granted is given back before it returns.
    func run(_ unit: WorkerProtocol.Unit) -> Ending {
        var place = Place(stage: .open, row: nil)
        var granted: Int64 = 0
        var estimate: Int64?
        defer { if granted > 0 { budget.release(granted) } }
        guard worker.writer.send(.unit, unit) else { return .died(worker.wait(), at: place) }
        var deadline = ContinuousClock.now + stageAllowance
        var measured = ContinuousClock.now
        while true {
            if cancellation?.isCancelled == true {
                worker.stop()
                return .cancelled
            }
            // Once a tick, not once a frame: a unit of small images brings frames faster.
            if ContinuousClock.now - measured >= Self.tick {
                measured = .now
                let limit = max(budget.share, granted) + MemoryBudget.processBaseline
                if worker.residentBytes > limit {
                    worker.stop()
                    return .outgrew(limit: limit, estimate: estimate, at: place)
                }
            }
            switch worker.reader.next(until: min(deadline, .now + Self.tick)) {
            case .timedOut:
                if ContinuousClock.now >= deadline {
                    worker.stop()
                    return .overran(at: place, seconds: seconds)
                }
            case .closed:
                return cancellation?.isCancelled == true ? .cancelled : .died(worker.wait(), at: place)
            case .frame(let frame):
                switch frame.kind {
                case .stage:
                    if let reached = frame.decoded(WorkerProtocol.Stage.self) {
                        place = Place(stage: reached.stage, row: reached.row)
                    }
                    deadline = .now + stageAllowance
                case .estimate:
                    guard let asked = frame.decoded(WorkerProtocol.Estimate.self) else { break }
                    estimate = asked.bytes
                    guard asked.bytes >= budget.askAbove else { break }  // not waiting for an answer
                    var refusal: String?
                    if asked.bytes > budget.total {
                        refusal = "decoding \(asked.width)×\(asked.height) needs an estimated "
                            + "\(MemoryBudget.text(asked.bytes)), over the --max-memory budget of "
                            + MemoryBudget.text(budget.total)
                    } else if budget.reserve(asked.bytes, isCancelled: { cancellation?.isCancelled == true }) {
                        granted = asked.bytes
                    } else {
                        worker.stop()
                        return .cancelled
                    }
                    worker.writer.send(.admit, WorkerProtocol.Admit(refusal: refusal))
                    deadline = .now + stageAllowance
                case .loaded:
                    if let loaded = frame.decoded(WorkerProtocol.Loaded.self) { listener.loaded(loaded) }
                case .output:
                    if let header = frame.decoded(WorkerProtocol.Output.self) { listener.output(header, frame.payload) }
                case .failure:
                    if let failure = frame.decoded(WorkerProtocol.Failure.self) { listener.failure(failure) }
                case .done:
                    return .done
                case .setup, .ready, .unit, .admit:
                    worker.stop()
                    return .died(worker.wait(), at: place)
                }
            }
        }
    }
}
