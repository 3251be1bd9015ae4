import CSystem
import Foundation
import Synchronization

/// One worker process, seen from the parent: started with a minimal environment, spoken to
/// over two pipes, and stopped with SIGKILL when it overruns, grows too large or the run is
/// cancelled.
final class WorkerProcess: @unchecked Sendable {
    /// The process id.
    let pid: pid_t
    /// Frames from the worker.
    let reader: WorkerFrameReader
    /// Frames to the worker.
    let writer: WorkerFrameWriter
    /// Units it has served, for recycling.
    var units = 0
    /// The recipes it holds, which later units name by slot.
    var recipes = RecipeSlots()
    private let toWorker: Int32
    private let fromWorker: Int32
    /// The wait status, once the process has been reaped.
    private let status = Mutex<Int32?>(nil)
    /// Whether the pipe to the worker is still open (`finish()` closes it, once).
    private let inputOpen = Mutex(true)

    /// How the process ended.
    enum Exit: Equatable {
        case signal(Int32)
        case code(Int32)

        /// "SIGSEGV", "SIGABRT", ...; "exit status N".
        var description: String {
            switch self {
            case .signal(let number): return Self.signalName(number)
            case .code(let code): return "exit status \(code)"
            }
        }

        private static func signalName(_ number: Int32) -> String {
            let names: [Int32: String] = [
                SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
                SIGILL: "SIGILL", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGSYS: "SIGSYS",
                SIGTRAP: "SIGTRAP", SIGPIPE: "SIGPIPE", SIGINT: "SIGINT",
            ]
            return names[number] ?? "signal \(number)"
        }
    }

    /// Starts `executable` in the worker mode and hands it `setup`; throws a readable reason
    /// when it cannot be started or does not answer as this version does.
    init(executable: String, environment: [String: String], setup: WorkerProtocol.Setup) throws(WorkerStartError) {
        var down: [Int32] = [0, 0], up: [Int32] = [0, 0]
        guard tg_sys_pipe_cloexec(&down) == 0 else { throw .init("pipe: \(String(cString: strerror(errno)))") }
        guard tg_sys_pipe_cloexec(&up) == 0 else {
            close(down[0]); close(down[1])
            throw .init("pipe: \(String(cString: strerror(errno)))")
        }
        // The child's ends must not already be 3 or 4: dup2 onto itself would keep O_CLOEXEC.
        let childIn = Self.above(4, down[0]), childOut = Self.above(4, up[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)  // stray prints must not reach a pipe
        posix_spawn_file_actions_adddup2(&actions, childIn, 3)
        posix_spawn_file_actions_adddup2(&actions, childOut, 4)
        _ = tg_sys_spawn_close_from(&actions, 5)
        let argv: [UnsafeMutablePointer<CChar>?] = [Self.displayName(executable), WorkerLoop.argument].map { (text: String) in strdup(text) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
        for fd in Set([down[0], up[1], childIn, childOut]) { close(fd) }
        guard spawned == 0 else {
            close(down[1]); close(up[0])
            throw .init("\(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        toWorker = down[1]
        fromWorker = up[0]
        reader = WorkerFrameReader(descriptor: fromWorker)
        writer = WorkerFrameWriter(descriptor: toWorker)
        writer.send(.setup, setup)
        // A worker that cannot start exits, which ends the wait at once; this bound is for one
        // alive but silent, and is generous because a machine under load starts slowly.
        guard case .frame(let frame) = reader.next(until: .now + .seconds(120)), frame.kind == .ready,
              let ready = frame.decoded(WorkerProtocol.Ready.self) else {
            stop()
            throw .init("the worker did not start (\(wait().description))")
        }
        guard ready.version == WorkerProtocol.version else {
            stop()
            throw .init("the worker speaks protocol \(ready.version), not \(WorkerProtocol.version)")
        }
    }

    deinit {
        stop()
        _ = wait()
        finish()
        close(fromWorker)
    }

    /// Kills the process at once; it may be stuck in C, where nothing else reaches it.
    func stop() {
        if status.withLock({ $0 }) == nil { kill(pid, SIGKILL) }
    }

    /// Asks the worker to finish: it exits when its input closes.
    func finish() {
        let first = inputOpen.withLock { open in
            defer { open = false }
            return open
        }
        if first { close(toWorker) }
    }

    /// Waits for the process to end and says how it did.
    @discardableResult
    func wait() -> Exit {
        var raw = reap(blocking: true)
        // Another thread reaped it: its status is there in a moment.
        while raw == nil {
            usleep(1000)
            raw = status.withLock { $0 }
        }
        let value = raw ?? 0
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift does not import.
        let signal = value & 0x7f
        return signal != 0 ? .signal(signal) : .code((value >> 8) & 0xff)
    }

    /// Whether the process ends within `time` (it is reaped if so).
    func exits(within time: Duration) -> Bool {
        let deadline = ContinuousClock.now + time
        repeat {
            if reap(blocking: false) != nil { return true }
            usleep(2000)
        } while ContinuousClock.now < deadline
        return false
    }

    /// The wait status, reaping the process if it has ended (waiting for that when
    /// `blocking`); nil while it runs, or when another thread is reaping it.
    private func reap(blocking: Bool) -> Int32? {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0, result: pid_t
        repeat { result = waitpid(pid, &raw, blocking ? 0 : WNOHANG) } while result < 0 && errno == EINTR
        guard result == pid else { return status.withLock { $0 } }
        status.withLock { $0 = raw }
        return raw
    }

    /// Bytes of memory the process holds now (its resident set); 0 once it is gone. Read with
    /// plain calls: the watchdog asks often.
    var residentBytes: Int64 {
        let fd = open("/proc/\(pid)/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        // "size resident shared ...", in pages.
        let fields = bytes[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int64(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
        return pages * Self.pageSize
    }

    private static let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))

    /// What `ps` shows as the worker's command: the binary's real path rather than
    /// /proc/self/exe, which the parent execs so that a binary replaced mid-run is not mixed in.
    private static func displayName(_ executable: String) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: executable)) ?? executable
    }

    /// `fd` if it is above `floor`, else a close-on-exec copy of it that is.
    private static func above(_ floor: Int32, _ fd: Int32) -> Int32 {
        fd > floor ? fd : fcntl(fd, F_DUPFD_CLOEXEC, floor + 1)
    }
}

/// Why a worker could not be started.
struct WorkerStartError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
