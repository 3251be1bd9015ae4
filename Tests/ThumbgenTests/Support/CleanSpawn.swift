import CSystem
import Foundation

/// `posix_spawn` that hands the child standard input, output and error and nothing else.
///
/// For children that outlive a test or start daemons (tmux's server, chromium's helpers):
/// a bare `posix_spawn` passes on every descriptor open in this process at that moment, and
/// with tests running in parallel those include Foundation's socket watching each other
/// test's child. A tmux server holding that socket made `Process` believe a finished
/// `thumbgen --help` ran for minutes (seen in CI: runs "killed" after 120 s with nothing
/// printed).
enum CleanSpawn {
    /// Starts `executable` with `arguments`, standard input from /dev/null, output and error
    /// into `stdout` and `stderr` (created or truncated; /dev/null when nil), in a process
    /// group of its own when `ownGroup`. Returns the pid; the caller reaps it.
    static func start(_ executable: String, _ arguments: [String], stdout: String? = nil,
                      stderr: String? = nil, ownGroup: Bool = false,
                      environment: [String: String] = ProcessInfo.processInfo.environment) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if ownGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard tg_sys_spawn_close_from(&actions, 3) == 0 else { throw FixtureError("posix_spawn_file_actions_addclosefrom_np") }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw FixtureError("starting \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Waits for `pid` and returns its raw wait status.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
