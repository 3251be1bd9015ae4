import Foundation
import Testing

/// Headless Chromium (Debian's `chromium` package, found on `PATH`) for tests that check a
/// page in a real browser: its DOM after scripts ran, and a screenshot.
///
/// Each run gets a fresh profile in a temporary folder and the flags a root user without a
/// display needs (`--no-sandbox`, `--disable-gpu`). Chromium starts helper processes (zygote,
/// renderer, GPU), so it runs in a process group of its own: a hung browser is killed, helpers
/// and all, after the time bound, and the test fails instead of the CI job.
enum Browser {
    /// The `chromium` executable on `PATH`, if any.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("chromium") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Whether the tests that need a browser can run.
    static var isAvailable: Bool { executable != nil }

    /// What one run of the browser printed.
    struct Output: Sendable {
        /// The exit status, or nil when the browser died of a signal or was killed.
        var status: Int32?
        var stdout: String
        var stderr: String
        var timedOut: Bool

        /// The page's console messages Chromium logged (`--enable-logging=stderr`), one per line.
        var consoleLines: [String] {
            stderr.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") }
        }
    }

    /// The flags every run uses: headless, no sandbox (CI runs as root), no GPU, nothing from
    /// the network or the user's profile, console messages on standard error.
    static func baseArguments(profile: URL) -> [String] {
        ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--mute-audio", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
    }

    /// The DOM of `page` once it loaded and its scripts had `budget` milliseconds of virtual
    /// time (`--dump-dom`), in standard output.
    static func dumpDOM(_ page: URL, budget: Int = 10_000, timeout: Duration = .seconds(60)) async throws -> Output {
        try await run(["--virtual-time-budget=\(budget)", "--dump-dom", page.absoluteString], timeout: timeout)
    }

    /// Saves a `width`×`height` PNG screenshot of `page` at `file`, taken once the page had
    /// `budget` milliseconds of virtual time to load.
    static func screenshot(_ page: URL, to file: URL, width: Int, height: Int, budget: Int = 10_000,
                           timeout: Duration = .seconds(60)) async throws -> Output {
        try await run(["--virtual-time-budget=\(budget)", "--window-size=\(width),\(height)",
                       "--screenshot=\(file.path)", page.absoluteString], timeout: timeout)
    }

    /// One browser at a time in the whole test process: a browser is half a dozen processes,
    /// and two at once beside the other suites on two cores left a page's real-time image
    /// decodes unfinished through four dumps in a row (seen once in CI).
    private static let turns = BrowserTurns()

    /// Runs `chromium` with the base flags and `arguments`, killing it (and its helpers) after
    /// `timeout` (counted from its start, not from the wait for its turn).
    static func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> Output {
        await turns.acquire()
        do {
            let output = try await runNow(arguments, timeout: timeout)
            await turns.release()
            return output
        } catch {
            await turns.release()
            throw error
        }
    }

    private static func runNow(_ arguments: [String], timeout: Duration) async throws -> Output {
        guard let executable else { throw FixtureError("chromium is not on PATH") }
        let scratch = try TemporaryDirectory("browser")
        let out = scratch.file("stdout"), err = scratch.file("stderr")
        let pid = try spawn(executable, baseArguments(profile: scratch.file("profile")) + arguments,
                            stdout: out, stderr: err)
        var status: Int32 = 0
        var timedOut = false
        let deadline = ContinuousClock.now + timeout
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                // The group is still ours: its leader is not reaped yet.
                kill(-pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                timedOut = true
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let exited = !timedOut && status & 0x7f == 0
        return Output(status: exited ? (status >> 8) & 0xff : nil,
                      stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "",
                      timedOut: timedOut)
    }

    /// `html` with `head` inserted right after `<head>` and `body` right before `</body>`: a
    /// page instrumented by a test.
    static func inject(into html: String, head: String, body: String) throws -> String {
        guard let open = html.range(of: "<head>"), let close = html.range(of: "</body>", options: .backwards)
        else { throw FixtureError("the page has no <head> or no </body>") }
        return String(html[..<open.upperBound]) + head + String(html[open.upperBound..<close.lowerBound])
            + body + String(html[close.lowerBound...])
    }

    /// A script for the top of a page that keeps every uncaught error and unhandled rejection
    /// in `window.__tgErrors`.
    static let errorCatcher = """
    <script>window.__tgErrors = [];
    window.addEventListener("error", function (e) { window.__tgErrors.push(String(e.message)); });
    window.addEventListener("unhandledrejection", function (e) { window.__tgErrors.push("rejection: " + String(e.reason)); });
    </script>
    """

    /// The text of the element `<pre id="ID">` in a dumped DOM, entities undone.
    static func preText(id: String, in dom: String) -> String? {
        guard let start = dom.range(of: "<pre id=\"\(id)\">"),
              let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else { return nil }
        // The serializer escapes only these in text.
        return dom[start.upperBound..<end.lowerBound]
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Starts `executable` as the leader of a new process group, standard input empty, the
    /// outputs in files (a pipe would block a chatty child).
    private static func spawn(_ executable: URL, _ arguments: [String], stdout: URL, stderr: URL) throws -> pid_t {
        try CleanSpawn.start(executable.path, arguments, stdout: stdout.path, stderr: stderr.path, ownGroup: true)
    }
}

/// A turn at the browser: `acquire` waits until no other test holds one.
private actor BrowserTurns {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
