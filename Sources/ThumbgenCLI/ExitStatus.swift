import ArgumentParser

/// The exit statuses docs/command-line.md lists under "Exit status", in one place.
enum ExitStatus {
    /// Every row succeeded (or `--fail-on never`).
    static let success = ExitCode(0)
    /// At least one row failed.
    static let rowFailed = ExitCode(1)
    /// The command line or the manifest as a whole is unusable.
    static let unusable = ExitCode(2)
    /// The output (or cache) folder cannot be written.
    static let unwritable = ExitCode(3)
    /// Interrupted by SIGINT.
    static let interrupted = ExitCode(130)
    /// Terminated by SIGTERM.
    static let terminated = ExitCode(143)
}
