import Foundation
import Testing
import Thumbgen

/// Signals at the edges of a run: while its manifest's input is open and silent, and while the
/// run cannot finish on its own.
@Suite("End to end: signals at the edges")
struct SignalEdgeTests {
    /// Starts `thumbgen ARGUMENTS` with pipes for standard input and output that the test holds
    /// (and never reads or writes, unless it says so).
    static func start(_ arguments: [String], cache: URL) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try #require(TestPaths.thumbgen)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBGEN_CACHE_DIR"] = cache.path
        process.environment = environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, input, output)
    }

    /// Waits up to `seconds` for `process` to end; kills it and returns nil if it does not.
    static func exitStatus(_ process: Process, within seconds: Double) async -> Int32? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }

    @Test("SIGTERM while standard input is open and silent ends the run with 143")
    func silentStandardInput() async throws {
        let space = try Workspace()
        let (process, input, _) = try Self.start(["-", "--out", space.out.path, "--report", space.reportURL.path],
                                                 cache: space.cache)
        try await Task.sleep(for: .milliseconds(500))
        kill(process.processIdentifier, SIGTERM)
        let status = await Self.exitStatus(process, within: 20)
        try? input.fileHandleForWriting.close()
        #expect(status == 143, "exit status \(String(describing: status)) (negative: killed by that signal)")
    }

    @Test("A second SIGTERM ends a run whose first could not (its reader blocked on a silent pipe)")
    func secondTerminate() async throws {
        let space = try Workspace()
        try space.fixture(RawImage.quadrants(width: 16, height: 16), "p.png")
        let (process, input, _) = try Self.start(["-", "--out", space.out.path, "--report", space.reportURL.path],
                                                 cache: space.cache)
        // A header and one row, then nothing more, with the pipe left open: the reader waits.
        input.fileHandleForWriting.write(Data("src,out\n\(space.folder.file("p.png").path),p.png\n".utf8))
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline && !FileManager.default.fileExists(atPath: space.output("p.png").path) {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGTERM)
        try await Task.sleep(for: .milliseconds(300))
        kill(process.processIdentifier, SIGTERM)
        let status = await Self.exitStatus(process, within: 20)
        try? input.fileHandleForWriting.close()
        #expect(status == 143, "exit status \(String(describing: status))")
        #expect(!space.outputFiles.contains { $0.hasSuffix(".tmp") }, "\(space.outputFiles)")
    }
}
