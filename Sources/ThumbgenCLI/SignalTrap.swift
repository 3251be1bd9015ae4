@preconcurrency import Dispatch
import Foundation
import Synchronization
import Thumbgen

/// Turns SIGINT and SIGTERM into a clean cancellation: the first cancels the run (which then
/// writes its report and exits 130 or 143); a second SIGINT removes temporary files and exits
/// at once.
final class SignalTrap: @unchecked Sendable {
    private let received = Mutex<Int32?>(nil)
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers; `onFirst` runs once, on a private queue.
    init(onFirst: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "thumbgen.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            sources.append(source)
        }
        self.sources = sources
        for (source, number) in zip(sources, [SIGINT, SIGTERM]) {
            source.setEventHandler { [self] in
                let first = received.withLock { current -> Bool in
                    guard current == nil else { return false }
                    current = number
                    return true
                }
                if first {
                    FileHandle.standardError.write(Data("thumbgen: interrupted; finishing up (press Ctrl-C again to stop at once)\n".utf8))
                    onFirst()
                } else if number == SIGINT {
                    TemporaryFiles.shared.removeAll()
                    _exit(130)
                }
            }
            source.resume()
        }
    }

    /// The first signal received, if any.
    var receivedSignal: Int32? { received.withLock { $0 } }
}
