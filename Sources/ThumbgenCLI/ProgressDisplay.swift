import Dispatch
import Foundation
import Synchronization
import Thumbgen

/// Shows a run's progress on standard error: on a terminal, one line redrawn in place; elsewhere
/// (a file, a pipe, a CI log), a plain line every few seconds and never an escape code. Every
/// other line the run prints goes through `print(_:)`, so that it never lands in the middle of
/// the progress line.
final class ProgressDisplay: @unchecked Sendable {
    /// How progress is shown.
    enum Style { case redraw, log, none }

    private struct State {
        var meter = ProgressMeter()
        var shown = ""      // the line on screen now (redraw style)
        var lastLog = 0.0   // when the last plain line was written (log style)
    }

    private let style: Style
    private let state = Mutex(State())
    private let started = ContinuousClock.now
    private let timer: DispatchSourceTimer?
    /// Seconds between plain lines (log style); `THUMBGEN_PROGRESS_SECONDS` overrides it.
    private let logInterval: Double

    /// A display of `style`; it starts ticking at once.
    init(style: Style) {
        self.style = style
        let interval = ProcessInfo.processInfo.environment["THUMBGEN_PROGRESS_SECONDS"].flatMap(Double.init)
        logInterval = interval ?? 5
        guard style != .none else { timer = nil; return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "thumbgen.progress"))
        self.timer = timer
        let tick = style == .redraw ? 0.1 : min(1, logInterval)
        timer.schedule(deadline: .now() + tick, repeating: tick)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
    }

    /// The style `--progress` asks for: `auto` redraws on a terminal and logs elsewhere.
    static func style(_ choice: RunOptions.Progress, quiet: Bool) -> Style {
        switch choice {
        case .never: return .none
        case .always: return isatty(STDERR_FILENO) != 0 ? .redraw : .log
        case .auto: return quiet ? .none : isatty(STDERR_FILENO) != 0 ? .redraw : .log
        }
    }

    /// Whether anything is shown at all.
    var isShown: Bool { style != .none }

    /// Counts rows that finished together.
    func count(_ results: [RowResult]) {
        state.withLock { state in
            for result in results { state.meter.count(result) }
        }
    }

    /// Sets the number of rows, once the manifest has been counted.
    func setTotal(_ total: Int) {
        state.withLock { $0.meter.total = total }
    }

    /// Prints `line` (a failed row, a verbose row) above the progress line, made safe for a
    /// terminal (it names cells and paths).
    func print(_ line: String) {
        state.withLock { state in
            var text = TerminalText.safe(line) + "\n"
            if style == .redraw, !state.shown.isEmpty {
                text = "\r\u{1B}[2K" + text + state.shown
            }
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// Stops the display and clears its line, before the summary is printed.
    func finish() {
        timer?.cancel()
        state.withLock { state in
            if style == .redraw, !state.shown.isEmpty {
                FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
                state.shown = ""
            }
        }
    }

    private var seconds: Double {
        (ContinuousClock.now - started).inSeconds
    }

    private func tick() {
        let now = seconds
        state.withLock { state in
            let text = state.meter.line(seconds: now)
            switch style {
            case .redraw:
                let width = Self.terminalWidth()
                var line = "thumbgen: " + state.meter.bar(width: 22) + text
                if line.count >= width { line = String(line.prefix(max(10, width - 1))) }
                guard line != state.shown else { return }
                state.shown = line
                FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
            case .log:
                guard now - state.lastLog >= logInterval else { return }
                state.lastLog = now
                FileHandle.standardError.write(Data(("thumbgen: " + text + "\n").utf8))
            case .none:
                break
            }
        }
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
