@preconcurrency import Dispatch
import Foundation
import Synchronization
import Thumbgen

/// Turns SIGINT and SIGTERM into a clean cancellation.
///
/// Installed first thing in `main`, before the command line is even parsed, so that no moment
/// of a run is without it. Until a run `listen`s, a signal exits at once (130 after SIGINT,
/// 143 after SIGTERM), as the default action would but removing temporary files: there is no
/// report to save yet. While a run listens, the first signal presses `stop` (the run then
/// cancels its rows, writes its report and exits 130 or 143), and a second signal of either
/// kind exits at once.
final class SignalTrap: @unchecked Sendable {
    /// The process's one trap.
    static let shared = SignalTrap()

    /// Pressed by the first signal that arrives while a run listens.
    let stop = Cancellation()
    private let state = Mutex<(received: Int32?, listening: Bool)>((nil, false))
    private var sources: [any DispatchSourceSignal] = []

    private init() {
        let queue = DispatchQueue(label: "thumbgen.signals")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in handle(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Makes sure the handlers are in place (the first use of `shared` installs them).
    func install() {}

    /// From now on the first signal cancels the run (through `stop`) instead of exiting.
    func listen() {
        state.withLock { $0.listening = true }
    }

    /// The first signal received while a run listened, if any.
    var receivedSignal: Int32? { state.withLock { $0.received } }

    private func handle(_ number: Int32) {
        let first = state.withLock { state -> Bool in
            guard state.listening, state.received == nil else { return false }
            state.received = number
            return true
        }
        guard first else {
            Pipeline.stopEveryWorker()
            TemporaryFiles.shared.removeAll()
            _exit(number == SIGINT ? 130 : 143)
        }
        FileHandle.standardError.write(Data("thumbgen: interrupted; finishing up (press Ctrl-C again to stop at once)\n".utf8))
        // Off the signal queue: cancelling can block (an events pipe nobody reads), and the
        // second signal's handler must still run.
        DispatchQueue.global().async { [stop] in stop.cancel() }
    }
}
