import Foundation
import Testing

/// What one run of the `thumbgen` binary did.
struct CLIResult: Sendable {
    /// The exit status, or nil when the process died of a signal or had to be killed.
    var status: Int32?
    var stdout: String
    var stderr: String
    /// Whether the run outlived its time bound and was killed.
    var timedOut: Bool
}

/// Runs the real `thumbgen` binary with Foundation's `Process`, output captured to files (a
/// pipe would block a chatty child), and a time bound after which the child is killed.
final class CLIRunner: @unchecked Sendable {
    private let process = Process()
    private let outURL: URL, errURL: URL
    private let scratch: TemporaryDirectory

    /// Prepares `thumbgen ARGUMENTS`, run in `directory` (default: the current folder), with
    /// `stdin` (if any) as its standard input. `cacheDirectory` becomes `THUMBGEN_CACHE_DIR`;
    /// by default each run gets an empty cache of its own, so that no test ever reads or fills
    /// the user's `~/.cache/thumbgen` or another test's cache.
    init(_ arguments: [String], in directory: URL? = nil, stdin: Data? = nil,
         cacheDirectory: URL? = nil, environment extra: [String: String] = [:]) throws {
        guard let binary = TestPaths.thumbgen else {
            throw FixtureError("the thumbgen binary was not found; build it with "
                               + "`swift build --scratch-path .build-tests --build-tests`")
        }
        scratch = try TemporaryDirectory("cli")
        outURL = scratch.file("stdout"); errURL = scratch.file("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBGEN_CACHE_DIR"] = (cacheDirectory ?? scratch.file("cache")).path
        environment.merge(extra) { $1 }
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        if let stdin {
            process.standardInput = try FileHandle(forReadingFrom: try scratch.write(stdin, to: "stdin"))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
    }

    /// Starts the child.
    func start() throws { try process.run() }

    /// Whether the child is still running.
    var isRunning: Bool { process.isRunning }

    /// What the child has written to standard error so far.
    var stderrText: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    /// The child's process id.
    var processIdentifier: pid_t { process.processIdentifier }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the child to end, killing it after `timeout`; records an issue when it had to,
    /// or when it died of a signal other than `killedBy`.
    func wait(timeout: Duration, killedBy expectedSignal: Int32? = nil,
              sourceLocation: Testing.SourceLocation = #_sourceLocation) async -> CLIResult {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let timedOut = process.isRunning
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("thumbgen \(process.arguments ?? []) ran longer than \(timeout); killed",
                         sourceLocation: sourceLocation)
        }
        process.waitUntilExit()
        let exited = process.terminationReason == .exit && !timedOut
        let stderr = stderrText
        if !exited && !timedOut && process.terminationStatus != expectedSignal {
            // Name the crash from Swift's backtrace, if it printed one.
            let crash = stderr.split(separator: "\n").first { $0.contains("crashed") } ?? ""
            Issue.record("thumbgen died of signal \(process.terminationStatus) \(crash)",
                         sourceLocation: sourceLocation)
        }
        return CLIResult(
            status: exited ? process.terminationStatus : nil,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: stderr, timedOut: timedOut)
    }

    /// Runs `thumbgen ARGUMENTS` to the end (at most `timeout`).
    static func run(_ arguments: [String], in directory: URL? = nil, stdin: Data? = nil,
                    cacheDirectory: URL? = nil, environment: [String: String] = [:],
                    timeout: Duration = .seconds(120),
                    sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> CLIResult {
        let runner = try CLIRunner(arguments, in: directory, stdin: stdin, cacheDirectory: cacheDirectory,
                                   environment: environment)
        try runner.start()
        return await runner.wait(timeout: timeout, sourceLocation: sourceLocation)
    }
}

/// The `--report` document as its documented schema names it (decoded independently of the
/// library's own types, so that a renamed field fails here).
struct Report: Decodable, Sendable {
    struct Summary: Decodable, Sendable {
        var rows: Int, written: Int, unchanged: Int, failed: Int, cancelled: Int
        var dropped: Int?
        var errors: [String: Int]
        var seconds: Double
        var cache: [String: Int]?
        var warm: [String: Int]?
    }
    struct Failure: Decodable, Sendable {
        var code: String
        var message: String
    }
    struct HTTP: Decodable, Sendable {
        var status: Int
        var bytes: Int
        var attempts: Int
    }
    struct Row: Decodable, Sendable {
        var row: Int
        var id: String
        var src: String
        var status: String
        var out: String?
        var width: Int?
        var height: Int?
        var bytes: Int?
        var sha256: String?
        var format: String?
        var error: Failure?
        var http: HTTP?
        var ms: [String: Double]?
        var cache: String?
        var source_sha256: String?
        var warm: String?
        var plan: String?
        var placeholder: Placeholder?
        var fallback: Fallback?
        var crop: Crop?
    }
    struct Crop: Decodable, Sendable, Equatable, CustomStringConvertible {
        var x: Int, y: Int, width: Int, height: Int
        var description: String { "\(x),\(y) \(width)×\(height)" }
    }
    struct Fallback: Decodable, Sendable {
        var format: String
        var bytes: Int
    }
    struct Placeholder: Decodable, Sendable, Equatable {
        var dominant: String?
        var lqip: String?
        var thumbhash: String?
        var transparent: Bool?
    }
    var schema: Int
    var summary: Summary
    var rows: [Row]

    /// Reads a report file.
    static func read(_ url: URL) throws -> Report {
        try JSONDecoder().decode(Report.self, from: Data(contentsOf: url))
    }

    /// The record for manifest line `line`, if any.
    func row(_ line: Int) -> Row? { rows.first { $0.row == line } }
}
